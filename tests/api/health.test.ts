import handler from '@/pages/api/health';
import { call, serveHandler, type TestServer } from '@/tests/api/helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await serveHandler(handler);
});
afterAll(() => server.close());

test('reports that Auth and Firestore answer, and the dead letters waiting', async () => {
  const response = await call(server);
  expect(response.status).toBe(200);
  expect(response.body).toEqual({
    status: 'ok',
    services: { auth: true, firestore: true },
    deadLetters: { conversions: expect.any(Number), sync: expect.any(Number) },
  });
});

test('refuses other methods with 405 and says which one to use', async () => {
  const response = await call(server, { method: 'POST', body: {} });
  expect(response.status).toBe(405);
  expect(response.headers.get('allow')).toBe('GET');
});
