// Notes are Markdown. This renders the small subset a canvas note needs (headings, bold,
// italic, inline code, links, bullet lists, paragraphs) straight to DOM nodes, so the
// user's text never passes through innerHTML and cannot inject markup or script.

import { h } from "./dom.js";

const INLINE = /(\*\*[^*]+\*\*|\*[^*]+\*|`[^`]+`|\[[^\]]+\]\([^)\s]+\))/;

function inline(text) {
  const out = [];
  for (const part of text.split(INLINE)) {
    if (!part) continue;
    if (part.startsWith("**") && part.endsWith("**") && part.length > 4) out.push(h("strong", {}, part.slice(2, -2)));
    else if (part.startsWith("`") && part.endsWith("`") && part.length > 2) out.push(h("code", {}, part.slice(1, -1)));
    else if (part.startsWith("*") && part.endsWith("*") && part.length > 2) out.push(h("em", {}, part.slice(1, -1)));
    else if (part.startsWith("[")) {
      const match = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(part);
      const safe = match && /^https?:\/\//i.test(match[2]);
      out.push(safe ? h("a", { href: match[2], target: "_blank", rel: "noopener noreferrer" }, match[1]) : part);
    } else out.push(part);
  }
  return out;
}

/** A DocumentFragment rendering `source` (Markdown subset) with text nodes only. */
export function renderMarkdown(source) {
  const fragment = document.createDocumentFragment();
  let list = null;
  for (const line of String(source || "").split("\n")) {
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    if (bullet) {
      if (!list) fragment.append((list = h("ul")));
      list.append(h("li", {}, inline(bullet[1])));
      continue;
    }
    list = null;
    if (heading) fragment.append(h(`h${heading[1].length + 2}`, {}, inline(heading[2])));
    else if (line.trim()) fragment.append(h("p", {}, inline(line)));
  }
  return fragment;
}
