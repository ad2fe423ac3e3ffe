// Typed ports: which ports each node type has, and which pairs may be joined.
// The server validates the same rule (see the builder contract); this copy lets the
// canvas grey out and refuse incompatible targets while the user is connecting.

const FIXED = {
  start: { inputs: [], outputs: [["out", "text"]] },
  agent: { inputs: [["in", "text"], ["tools", "tool"]], outputs: [["out", "text"]] },
  loop: { inputs: [["in", "text"]], outputs: [["body", "text"], ["done", "text"]] },
  subgraph: { inputs: [["in", "text"]], outputs: [["out", "text"]] },
  hitl: { inputs: [["in", "text"]], outputs: [] },
  agent_tool: { inputs: [], outputs: [["tool", "tool"]] },
  note: { inputs: [], outputs: [] },
  end: { inputs: [["in", "text"]], outputs: [] },
};

const asPorts = (pairs) => pairs.map(([name, type]) => ({ name, type }));

/** The input and output ports of a node: `{inputs: [{name, type}], outputs: [...]}`. */
export function portsOf(node) {
  const fixed = FIXED[node.type] || FIXED.note;
  const outputs =
    node.type === "hitl"
      ? hitlOptions(node).map((name) => ({ name, type: "option" }))
      : asPorts(fixed.outputs);
  return { inputs: asPorts(fixed.inputs), outputs };
}

/** A Human Input node's option labels (each one an output port), de-duplicated, never empty strings. */
export function hitlOptions(node) {
  const seen = new Set();
  for (const raw of Array.isArray(node.options) ? node.options : []) {
    const label = String(raw).trim();
    if (label) seen.add(label);
  }
  return [...seen];
}

/** May an output of `fromType` join an input of `toType`? Same type, or an option into text. */
export function portsCompatible(fromType, toType) {
  return fromType === toType || (fromType === "option" && toType === "text");
}

export function findPort(node, side, name) {
  const ports = portsOf(node)[side === "in" ? "inputs" : "outputs"];
  return ports.find((p) => p.name === name) || null;
}
