// The offline workflow generator: with no AI key (or no server at all) "✨ AI → Generate"
// still turns a plain-English description into a graph, by matching keywords to steps.
// This is the only copy of the matcher (the server answers {"fallback": true} instead).

import { addNode, connect, emptyDocument } from "./document.js";

const WEB = "selectools.toolbox.web_tools.web_search";

// [keyword pattern, step] in the order the steps run
const STEPS = [
  [/\b(rag|documents?|knowledge|retriev\w*|docs)\b/i, { name: "retriever", system_prompt: "Find the passages of the knowledge base that answer the question and quote them." }],
  [/\b(search\w*|web|internet|browse)\b/i, { name: "searcher", system_prompt: "Search the web for the question and list the useful facts with their sources.", tools: [WEB] }],
  [/\b(research\w*|investigat\w*|analy[sz]\w*)\b/i, { name: "researcher", system_prompt: "Research the topic thoroughly and write clear notes." }],
  [/\b(think|reason\w*|step[- ]by[- ]step|chain of thought)\b/i, { name: "thinker", system_prompt: "Think step by step and write out your reasoning before the answer." }],
  [/\b(translat\w*)\b/i, { name: "translator", system_prompt: "Translate the text faithfully." }],
  [/\b(writ\w*|draft\w*|report|blog|article|essay)\b/i, { name: "writer", system_prompt: "Write a clear, well-structured text from the material you are given." }],
  [/\b(summar\w*|tl;?dr|condens\w*)\b/i, { name: "summarizer", system_prompt: "Summarise the input in a few sentences." }],
];
const REVIEW = /\b(review\w*|critic\w*|feedback|loop|until|iterat\w*|refin\w*)\b/i;
const HUMAN = /\b(approv\w*|human|hitl|sign[- ]?off|confirm\w*|manual)\b/i;
const PANEL = /\b(panel|compare|multi[- ]model|several models|vote)\b/i;

/** A workflow document for `description`, built offline from keyword matches. */
export function generateFromKeywords(description) {
  const text = String(description || "");
  const doc = emptyDocument(workflowName(text));
  const end = doc.nodes.find((n) => n.type === "end");
  let x = 260;
  const place = () => ((x += 220), x - 220);
  let tail = { id: "start", port: "out" };
  const link = (node, inPort = "in", outPort = "out") => {
    connect(doc, tail.id, tail.port, node.id, inPort);
    tail = { id: node.id, port: outPort };
    return node;
  };
  const agent = (step) => addNode(doc, "agent", place(), 200, { ...step, tools: [...(step.tools || [])] });

  if (PANEL.test(text)) {
    const judge = addNode(doc, "agent", x + 220, 200, { name: "judge", system_prompt: "Compare the answers and give the best one." });
    ["openai", "anthropic", "gemini"].forEach((provider, i) => {
      const member = addNode(doc, "agent", x, 60 + 140 * i, { name: `panelist_${provider}`, provider, system_prompt: "Answer the question." });
      connect(doc, tail.id, tail.port, member.id, "in");
      connect(doc, member.id, "out", judge.id, "in");
    });
    x += 440;
    tail = { id: judge.id, port: "out" };
  }
  const matched = STEPS.filter(([pattern]) => pattern.test(text)).map(([, step]) => step);
  if (!matched.length && !PANEL.test(text)) matched.push({ name: "assistant", system_prompt: text.trim() ? `You are a helpful assistant. ${text.trim()}` : "You are a helpful assistant." });
  matched.forEach((step) => link(agent(step)));
  if (REVIEW.test(text)) {
    const target = tail.id === "start" ? link(agent({ name: "writer", system_prompt: "Write the answer." })) : doc.nodes.find((n) => n.id === tail.id);
    const reviewer = link(agent({ name: "reviewer", system_prompt: "Review the draft. Say APPROVED when it is good, otherwise list what to fix." }));
    // below the reviewer, so the body edge back to the draft reads as a loop
    const loop = addNode(doc, "loop", reviewer.x, 380, { name: "review_loop", max_iterations: 3, exit_condition: "approved" });
    connect(doc, reviewer.id, "out", loop.id, "in");
    connect(doc, loop.id, "body", target.id, "in");
    tail = { id: loop.id, port: "done" };
  }
  if (HUMAN.test(text)) {
    const gate = link(addNode(doc, "hitl", place(), 200, { name: "approval", prompt: "Approve this result?", options: ["approve", "reject"] }), "in", "approve");
    connect(doc, gate.id, "reject", end.id, "in");
  }
  end.x = x;
  connect(doc, tail.id, tail.port, end.id, "in");
  return doc;
}

function workflowName(text) {
  const words = (text.toLowerCase().match(/[a-z]+/g) || []).filter((w) => w.length > 3).slice(0, 3);
  return words.length ? words.join("_") : "generated_workflow";
}
