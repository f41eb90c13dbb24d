/**
 * Device types hold a front and a rear image (NetBox's front_image, rear_image): uploaded as multipart
 * parts, shown as their URL, and filtered by has_front_image / has_rear_image.
 */
import { png } from '../support/images';
import { startTestApp, type TestApp } from '../support/test-app';

const LIST = '/api/dcim/device-types/';

describe('device type images', () => {
  let t: TestApp;
  let manufacturer: number;

  beforeAll(async () => {
    t = await startTestApp();
    const m = await t.api.post('/api/dcim/manufacturers/').set(t.auth).send({ name: 'Acme', slug: 'acme' });
    expect(m.status).toBe(201);
    manufacturer = m.body.id as number;
  });
  afterAll(async () => t?.close());

  const ids = async (q: string) => {
    const res = await t.api.get(`${LIST}?${q}&ordering=model`).set(t.auth);
    expect(res.status).toBe(200);
    return res.body.results.map((r: { model: string }) => r.model);
  };

  test('a front image uploads as a part, shows as its URL, and the filters tell which types have one', async () => {
    const withFront = await t.api.post(LIST).set(t.auth)
      .field('manufacturer', String(manufacturer)).field('model', 'A-front').field('slug', 'a-front')
      .attach('front_image', png(4, 3), { filename: 'front.png', contentType: 'image/png' });
    expect(withFront.status).toBe(201);
    expect(new URL(withFront.body.front_image as string).pathname).toMatch(/^\/media\/devicetype-images\/front(_[A-Za-z0-9]{7})?\.png$/);
    expect(withFront.body.rear_image).toBeNull();
    const plain = await t.api.post(LIST).set(t.auth).send({ manufacturer, model: 'B-plain', slug: 'b-plain' });
    expect(plain.status).toBe(201);
    expect(plain.body.front_image).toBeNull();

    expect(await ids('has_front_image=true')).toEqual(['A-front']);
    expect(await ids('has_front_image=false')).toEqual(['B-plain']);
    expect(await ids('has_rear_image=true')).toEqual([]);
    expect(await ids('has_rear_image=false')).toEqual(['A-front', 'B-plain']);
  });
});
