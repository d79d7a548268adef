/**
 * What rendering templates may cost one call (docs/faces/email.md § E-mail, "Template budgets"): the tokens of the
 * templates it compiles and how deeply they nest, checked before Handlebars parses them; the steps rendering
 * runs and the characters it writes, checked as it goes. A `sendBatch` shares one budget among its messages,
 * so that a batch costs no more than one call may; a rendered part also keeps a message's own length.
 */

export const TEMPLATE_LIMITS = {
  /** Tokens of the template parts a call uses (names, literals, braces, the text between them), each counted once. */
  tokens: 3_000,
  /** Blocks, parentheses and the parts of a path inside one another. */
  depth: 32,
  /** Steps of rendering: each text, expression and block of a template counted every time it runs. */
  steps: 500_000,
  /** Characters written by every template the call renders: two messages' worth at their longest. */
  output: 4_000_000,
} as const;

/** Which budget a template passed: one of TEMPLATE_LIMITS, or `length`, a rendered part's own limit. */
export type BudgetName = keyof typeof TEMPLATE_LIMITS | 'length';

/** Thrown where a budget runs out; templates.ts turns it into the call's answer. */
export class BudgetExceeded extends Error {
  constructor(
    readonly budget: BudgetName,
    readonly limit: number,
  ) {
    super(`the ${budget} budget of ${limit} is spent`);
  }
}

/** A compiled template, rendering its data. */
export type Compiled = (data: object) => string;

/** One call's spending, shared by every template it compiles and renders. */
export class TemplateBudget {
  tokens = 0;
  steps = 0;
  output = 0;
  /** The template parts this call paid for, by mode and source: each is paid for once. */
  readonly counted = new Set<string>();

  spendTokens(tokens: number): void {
    if ((this.tokens += tokens) > TEMPLATE_LIMITS.tokens) throw new BudgetExceeded('tokens', TEMPLATE_LIMITS.tokens);
  }

  spendSteps(steps: number): void {
    if ((this.steps += steps) > TEMPLATE_LIMITS.steps) throw new BudgetExceeded('steps', TEMPLATE_LIMITS.steps);
  }

  spendOutput(characters: number): void {
    if ((this.output += characters) > TEMPLATE_LIMITS.output) throw new BudgetExceeded('output', TEMPLATE_LIMITS.output);
  }
}
