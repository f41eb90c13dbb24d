import type { TestApp } from '../../support/test-app';
import { creatableModels, listUrl, validObjects } from '../../support/valid-objects';

/**
 * At least one object of every type a client may create: the hand-made parts cover the realistic
 * shape, this covers the rest from the definitions (tests/support/valid-objects.ts), so a new schema file
 * is in the seed without anyone writing it in. A type that cannot be made fails the seed, naming it.
 */
export async function seedEveryType(t: TestApp): Promise<string[]> {
  const objects = validObjects(() => t);
  const filled: string[] = [];
  for (const m of creatableModels(t.registry)) {
    const res = await t.api.get(`${listUrl(m)}?limit=1`).set(t.auth);
    if (res.status !== 200) throw new Error(`seed: listing ${m.label}: ${res.status} ${res.text}`);
    if ((res.body as { count: number }).count > 0) continue;
    try {
      await objects.createOne(m);
    } catch (e) {
      throw new Error(`seed: no ${m.label} could be made: ${(e as Error).message}`);
    }
    filled.push(m.label);
  }
  return filled;
}
