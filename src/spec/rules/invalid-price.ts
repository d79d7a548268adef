/**
 * Rule `invalid-price`: every price of an action (`cost.perCall`, each `cost.perUnit`) is a plain decimal,
 * not negative, of at most 9 decimal places, so that the runtime can charge it exactly in nano-units.
 */
import { diagnostic, type Diagnostic } from '../diagnostics.js';
import type { Face } from '../model.js';
import { priceProblem } from '../price.js';
import type { JsonPath, SourceFile } from '../source.js';

/** Reports each refused price at its value in the face file. */
export function invalidPrice(face: Face, source: SourceFile): Diagnostic[] {
  const out: Diagnostic[] = [];
  const check = (price: string, at: JsonPath) => {
    const reason = priceProblem(price);
    if (reason) out.push(diagnostic('invalid-price', source.at(at), { price, reason }));
  };
  for (const action of face.actions) {
    const at: JsonPath = ['actions', action.name, 'cost'];
    check(action.cost.perCall, [...at, 'perCall']);
    for (const [unit, price] of Object.entries(action.cost.perUnit)) check(price, [...at, 'perUnit', unit]);
  }
  return out;
}
