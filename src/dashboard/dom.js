// The few DOM helpers every part of the dashboard uses: find an element by id, build one, set its text.
// They exist so that everything that comes from the server is written as text (textContent, text nodes),
// never parsed as HTML, in one place rather than by each module.

export const $ = (id) => document.getElementById(id);

/** An element with text children only (strings become text nodes, never markup). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') element.className = value;
    else if (name === 'title') element.title = String(value);
    else element.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== undefined && child !== null && child !== false) element.append(child);
  return element;
}

export function setText(id, text) {
  $(id).textContent = text;
}
