/**
 * Rules `tool-*`: every action served as an MCP tool (spec/mcp/tool.ts) fits the clients people use
 * (spec/mcp/client-limits.ts), so that no client refuses the server's whole tool list for one tool. Each
 * problem is reported at what to change: the action's name, its description, its payload or its result.
 */
import { diagnostic, type Diagnostic } from '../diagnostics.js';
import type { Face, Platform } from '../model.js';
import { toolProblems, type ToolPart } from '../mcp/client-limits.js';
import { mcpTool } from '../mcp/tool.js';
import type { JsonPath, SourceFile } from '../source.js';

/** `actions`: the names of those whose references resolve. */
export function mcpTools(face: Face, source: SourceFile, platform: Platform, actions: readonly string[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const action of face.actions.filter((a) => actions.includes(a.name))) {
    const entry = mcpTool(face, action, platform.latest);
    if (!entry) continue;
    const at = (part: ToolPart): JsonPath => {
      const base: JsonPath = ['actions', action.name];
      if (part === 'input') return [...base, 'payload'];
      if (part === 'output') return [...base, 'result'];
      if (part === 'description') return [...base, action.description === undefined ? 'summary' : 'description'];
      return base;
    };
    for (const problem of toolProblems(entry.tool)) {
      out.push(diagnostic(problem.rule, source.at(at(problem.part), problem.part === 'name'), { action: action.id, ...problem.args }));
    }
  }
  return out;
}
