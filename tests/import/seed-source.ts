import type { TestApp } from '../support/test-app';
import { listUrl, servedModels } from '../support/valid-objects';
import { SeedClient } from './seed/seed-client';
import { emptyIds, type SeedIds } from './seed/seed-ids';
import { seedTagsAndFields } from './seed/tags-and-fields';
import { seedPlaces } from './seed/places';
import { seedDevicesAndCables } from './seed/devices-and-cables';
import { seedIpamAndCircuits } from './seed/ipam-and-circuits';
import { seedContextsAndRecords } from './seed/contexts-and-records';
import { seedUsersAndHistory } from './seed/users-and-history';
import { seedEveryType } from './seed/every-type';

export type { SeedIds } from './seed/seed-ids';

export interface SeedSummary {
  /** Objects of each served type after seeding (read-only ones such as the change log included), by label. */
  counts: Record<string, number>;
  /** The hand-made objects, as the API answered their creation. */
  ids: SeedIds;
  /** The types only the generic fill made an object of. */
  filled: string[];
}

/**
 * A representative NetBox data set, written through the API of a test app: the source the importer's
 * round trip reads (issue 24). Deterministic: the same objects in the same order, so the same ids on a
 * fresh database.
 */
export async function seedSource(t: TestApp): Promise<SeedSummary> {
  const c = new SeedClient(t);
  const ids = emptyIds();
  await seedTagsAndFields(c, ids);
  await seedPlaces(c, ids);
  await seedDevicesAndCables(c, ids);
  await seedIpamAndCircuits(c, ids);
  await seedContextsAndRecords(c, ids);
  await seedUsersAndHistory(c, ids);
  const filled = await seedEveryType(t);
  return { counts: await countServed(t), ids, filled };
}

/** How many objects of each served type the app holds, as its lists count them. */
export async function countServed(t: TestApp): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const m of servedModels(t.registry)) {
    const res = await t.api.get(`${listUrl(m)}?limit=1`).set(t.auth);
    if (res.status !== 200) throw new Error(`counting ${m.label}: ${res.status} ${res.text}`);
    counts[m.label] = (res.body as { count: number }).count;
  }
  return counts;
}
