import { startTestApp, type TestApp } from '../support/test-app';

/**
 * NetBox 3.7's IKE proposals and policies, IPSec proposals, policies and profiles, written as definitions
 * only: NetBox's fields in its order, choices with its values and labels, brief forms, the clean() rules
 * (an IKEv1 policy needs a mode, an IKEv2 one takes none; an IPSec proposal needs an algorithm, a blank
 * one counting as none), and the filters of vpn/filtersets.py, including the proposals followed back.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;

function norm(v: unknown): unknown {
  if (typeof v === 'string') return /^https?:\/\/[^/]+\/api\//.test(v) ? new URL(v).pathname : v;
  if (Array.isArray(v)) return v.map(norm);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)]));
  return v;
}
async function post(p: string, body: unknown): Promise<Json> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body as object);
  expect([p, res.status, res.status === 201 ? '' : res.text]).toEqual([p, 201, '']);
  return norm(res.body) as Json;
}
async function refused(p: string, body: unknown): Promise<[number, unknown]> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body as object);
  return [res.status, res.body];
}
async function names(query: string): Promise<string[]> {
  const res = await t.api.get(`/api/${query}`).set(t.auth);
  expect([query, res.status, res.status === 200 ? '' : res.text]).toEqual([query, 200, '']);
  return (res.body.results as Json[]).map((r) => r.name as string);
}
const stamps = (o: Json) => ({ created: o.created, last_updated: o.last_updated });

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

test('an IKE proposal: NetBox\'s fields, choices and brief form; a blank authentication algorithm is null', async () => {
  const p = await post('vpn/ike-proposals', { name: 'ike-aes', authentication_method: 'preshared-keys', encryption_algorithm: 'aes-256-gcm', group: 19, sa_lifetime: 28800 });
  expect(p).toEqual({
    id: p.id, url: `/api/vpn/ike-proposals/${p.id}/`, display: 'ike-aes', name: 'ike-aes', description: '',
    authentication_method: { value: 'preshared-keys', label: 'Pre-shared keys' },
    encryption_algorithm: { value: 'aes-256-gcm', label: '256-bit AES (GCM)' },
    authentication_algorithm: null,
    group: { value: 19, label: 'Group 19' },
    sa_lifetime: 28800, comments: '', tags: [], custom_fields: {}, ...stamps(p),
  });
  expect((await t.api.get(`/api/vpn/ike-proposals/${p.id}/?brief=1`).set(t.auth)).body).toEqual({ id: p.id, url: expect.stringMatching(new RegExp(`/api/vpn/ike-proposals/${p.id}/$`)), display: 'ike-aes', name: 'ike-aes' });
  expect(await refused('vpn/ike-proposals', { name: 'x', authentication_method: 'certificates', encryption_algorithm: 'des-cbc', group: 3 })).toEqual([400, { group: ['"3" is not a valid choice.'] }]);
  expect(await refused('vpn/ike-proposals', { name: 'x' })).toEqual([400, { authentication_method: ['This field is required.'], encryption_algorithm: ['This field is required.'], group: ['This field is required.'] }]);
});

test('an IKE policy: version 2 by default, its proposals nested; v1 needs a mode and v2 takes none', async () => {
  const prop = await post('vpn/ike-proposals', { name: 'ike-p1', authentication_method: 'certificates', encryption_algorithm: 'aes-128-cbc', authentication_algorithm: 'hmac-sha256', group: 14 });
  const v2 = await post('vpn/ike-policies', { name: 'ikev2', proposals: [prop.id], preshared_key: 'k3y' });
  expect(v2).toEqual({
    id: v2.id, url: `/api/vpn/ike-policies/${v2.id}/`, display: 'ikev2', name: 'ikev2', description: '',
    version: { value: 2, label: 'IKEv2' }, mode: null,
    proposals: [{ id: prop.id, url: `/api/vpn/ike-proposals/${prop.id}/`, display: 'ike-p1', name: 'ike-p1' }],
    preshared_key: 'k3y', comments: '', tags: [], custom_fields: {}, ...stamps(v2),
  });
  expect(await refused('vpn/ike-policies', { name: 'v1', version: 1 })).toEqual([400, { mode: ['Mode is required for selected IKE version'] }]);
  expect(await refused('vpn/ike-policies', { name: 'v1', version: 1, mode: '' })).toEqual([400, { mode: ['Mode is required for selected IKE version'] }]);
  expect(await refused('vpn/ike-policies', { name: 'v2', version: 2, mode: 'main' })).toEqual([400, { mode: ['Mode cannot be used for selected IKE version'] }]);
  const v1 = await post('vpn/ike-policies', { name: 'ikev1', version: 1, mode: 'aggressive' });
  expect([v1.version, v1.mode]).toEqual([{ value: 1, label: 'IKEv1' }, { value: 'aggressive', label: 'Aggressive' }]);
  // Filters: version, mode, the proposals by id and by name; the proposals by the policies naming them.
  expect(await names('vpn/ike-policies/?version=1')).toEqual(['ikev1']);
  expect(await names('vpn/ike-policies/?mode=aggressive')).toEqual(['ikev1']);
  expect(await names(`vpn/ike-policies/?proposal_id=${prop.id}`)).toEqual(['ikev2']);
  expect(await names('vpn/ike-policies/?proposal=ike-p1')).toEqual(['ikev2']);
  expect(await names('vpn/ike-proposals/?ike_policy=ikev2')).toEqual(['ike-p1']);
  expect(await names(`vpn/ike-proposals/?ike_policy_id=${v2.id}`)).toEqual(['ike-p1']);
  expect(await names('vpn/ike-proposals/?group=14&authentication_algorithm=hmac-sha256')).toEqual(['ike-p1']);
});

test('an IPSec proposal needs an encryption or an authentication algorithm; a blank one is none', async () => {
  expect(await refused('vpn/ipsec-proposals', { name: 'none' })).toEqual([400, { non_field_errors: ['Encryption and/or authentication algorithm must be defined'] }]);
  expect(await refused('vpn/ipsec-proposals', { name: 'none', encryption_algorithm: '', authentication_algorithm: '' })).toEqual([400, { non_field_errors: ['Encryption and/or authentication algorithm must be defined'] }]);
  const p = await post('vpn/ipsec-proposals', { name: 'esp-sha', authentication_algorithm: 'hmac-sha512', sa_lifetime_seconds: 3600, sa_lifetime_data: 102400 });
  expect(p).toEqual({
    id: p.id, url: `/api/vpn/ipsec-proposals/${p.id}/`, display: 'esp-sha', name: 'esp-sha', description: '',
    encryption_algorithm: null, authentication_algorithm: { value: 'hmac-sha512', label: 'SHA-512 HMAC' },
    sa_lifetime_seconds: 3600, sa_lifetime_data: 102400, comments: '', tags: [], custom_fields: {}, ...stamps(p),
  });
  expect(await names('vpn/ipsec-proposals/?sa_lifetime_data=102400&authentication_algorithm=hmac-sha512')).toEqual(['esp-sha']);
});

test('an IPSec policy and an IPSec profile: nested forms, PFS group, filters by the policies\' names', async () => {
  const prop = await post('vpn/ipsec-proposals', { name: 'esp-aes', encryption_algorithm: 'aes-256-cbc' });
  const pol = await post('vpn/ipsec-policies', { name: 'pfs', proposals: [prop.id], pfs_group: 20 });
  expect(pol).toEqual({
    id: pol.id, url: `/api/vpn/ipsec-policies/${pol.id}/`, display: 'pfs', name: 'pfs', description: '',
    proposals: [{ id: prop.id, url: `/api/vpn/ipsec-proposals/${prop.id}/`, display: 'esp-aes', name: 'esp-aes' }],
    pfs_group: { value: 20, label: 'Group 20' }, comments: '', tags: [], custom_fields: {}, ...stamps(pol),
  });
  const ike = await post('vpn/ike-policies', { name: 'for-profile' });
  const prof = await post('vpn/ipsec-profiles', { name: 'prof', mode: 'esp', ike_policy: ike.id, ipsec_policy: pol.id });
  expect(prof).toEqual({
    id: prof.id, url: `/api/vpn/ipsec-profiles/${prof.id}/`, display: 'prof', name: 'prof', description: '',
    mode: { value: 'esp', label: 'ESP' },
    ike_policy: { id: ike.id, url: `/api/vpn/ike-policies/${ike.id}/`, display: 'for-profile', name: 'for-profile' },
    ipsec_policy: { id: pol.id, url: `/api/vpn/ipsec-policies/${pol.id}/`, display: 'pfs', name: 'pfs' },
    comments: '', tags: [], custom_fields: {}, ...stamps(prof),
  });
  expect(await refused('vpn/ipsec-profiles', { name: 'x', mode: 'gre' })).toEqual([400, { mode: ['"gre" is not a valid choice.'], ike_policy: ['This field is required.'], ipsec_policy: ['This field is required.'] }]);
  expect(await names('vpn/ipsec-policies/?pfs_group=20&proposal=esp-aes')).toEqual(['pfs']);
  expect(await names('vpn/ipsec-profiles/?ike_policy=for-profile&ipsec_policy=pfs&mode=esp')).toEqual(['prof']);
  expect(await names(`vpn/ipsec-profiles/?ike_policy_id=${ike.id}&ipsec_policy_id=${pol.id}`)).toEqual(['prof']);
  // A policy a profile uses is protected.
  const del = await t.api.delete(`/api/vpn/ike-policies/${ike.id}/`).set(t.auth);
  expect(del.status).toBe(409);
});
