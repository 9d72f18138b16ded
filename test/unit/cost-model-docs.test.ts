/** docs/cost-model.md is generated from the code (src/schema/cost-model.docs.ts): it fails when stale. */
import fs from 'node:fs';
import { createSchema } from '../../src/schema/schema';
import { COST_MODEL_DOC, renderCostModel } from '../../src/schema/cost-model.docs';

describe('docs/cost-model.md', () => {
  it('is what `npm run docs:cost-model` writes from the cost model and the schema', async () => {
    const expected = renderCostModel(await createSchema());
    expect(fs.readFileSync(COST_MODEL_DOC, 'utf8')).toBe(expected);
  });
});
