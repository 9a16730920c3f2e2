import { createHash } from 'node:crypto';
import { parsePhoneNumberWithError } from 'libphonenumber-js';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { AdAccount, ConversionTarget } from '@/lib/shared/integrations/platforms';
import { connectorFor } from '@/lib/server/connectors/registry';
import type { Delivery, Session } from '@/lib/server/connectors/types';
import { API_VERSIONS } from '@/lib/server/connectors/versions';
import { hashPerson } from '@/lib/server/delivery/normalize';
import type { ContractCase } from '@/sandbox/contract';
import { CONTRACTS } from '@/sandbox/contracts';
import { consentTo, type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { refusal } from '@/tests/api/helpers/delivery';
import { spyOnLog, type LogSpy } from '@/tests/fixtures/logSpy';

// One suite over every connector that delivers conversions, against its fake: what each platform documents
// (sandbox/<platform>/contract.ts) is what its connector must honour. A platform is added by its case in
// sandbox/contracts.ts, never by another copy of these tests.
const APP_URL = 'http://localhost:3999';
const REDIRECT_URI = `${APP_URL}/addConversionDestination`;
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

let platforms: FakePlatforms;
let logged: LogSpy;
/** Every URL the connectors asked for, as fetch saw it (passed through unchanged). */
const requested: URL[] = [];

beforeAll(async () => {
  logged = spyOnLog();
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms));
  const realFetch = globalThis.fetch;
  jest.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    requested.push(new URL(input instanceof Request ? input.url : String(input)));
    return realFetch(input, init);
  });
});
afterAll(async () => {
  jest.restoreAllMocks();
  logged.mockRestore();
  await platforms.close();
});

/** A login through the fake's consent page, and an account of it that has a conversion target. */
async function connect(contract: ContractCase): Promise<{ session: Session; account: AdAccount; target: ConversionTarget }> {
  const connector = connectorFor(contract.platform);
  const oauth = connector.auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl(`state-contract-${contract.platform}`, REDIRECT_URI));
  const connection = await oauth.exchangeCode(returned.searchParams.get('code')!, REDIRECT_URI);
  const session = await connector.openSession(connection.credential);
  for (const account of await connector.listAccounts(session)) {
    if (account.isManager) continue;
    const [target] = await connector.listTargets(session, account);
    if (target) return { session, account, target };
  }
  throw new Error(`${contract.platform}: no account of the sandbox login has a conversion target`);
}

const RAW_EMAIL = '  Jane.Doe+Promo@GMail.com ';
const RAW_PHONE = '+1 (650) 555-1212';
const E164 = parsePhoneNumberWithError(RAW_PHONE).number;

describe.each(CONTRACTS.map((contract) => [contract.platform, contract] as const))('%s, as its platform documents it', (_, contract) => {
  const delivery = () => connectorFor(contract.platform).deliver as Delivery;
  let session: Session;
  let account: AdAccount;
  let target: ConversionTarget;
  const user = hashPerson({ email: RAW_EMAIL, phone: RAW_PHONE }).user;
  const receivedOf = (event: ConversionEvent) =>
    platforms.conversions.list(contract.received).find((entry) => entry.key.includes(contract.keyPartOf(event)));

  beforeAll(async () => {
    ({ session, account, target } = await connect(contract));
  });
  afterEach(() => platforms.conversions.failures.delete(contract.received));

  test(`a batch is never above the documented ${contract.maxEvents.count} events, and a full one goes in one request`, async () => {
    expect(delivery().maxBatch).toBeLessThanOrEqual(contract.maxEvents.count);
    const events = Array.from({ length: delivery().maxBatch }, (_, serial) => contract.event(serial, user));
    const calls = platforms.conversions.calls(contract.received);
    const outcomes = await delivery().send(session, account, target, events);
    expect(outcomes.filter((outcome) => outcome.status !== 'delivered')).toEqual([]);
    expect(platforms.conversions.calls(contract.received) - calls).toBe(1);
  });

  test('each identifier arrives hashed in the form the platform documents', async () => {
    const event = contract.event(0, user);
    await delivery().send(session, account, target, [event]);
    const received = receivedOf(event);
    expect(received).toBeDefined();
    expect(contract.identifiersOf(received!)).toEqual({
      email: sha256(contract.form.email(RAW_EMAIL)),
      phone: sha256(contract.form.phone(E164)),
    });
  });

  test('every request to the platform names the pinned API version', async () => {
    const from = requested.length;
    await delivery().send(session, account, target, [contract.event(1, user)]);
    const versions = requested.slice(from).flatMap((url) => contract.versionOf(url) ?? []);
    expect(versions.length).toBeGreaterThan(0);
    expect(new Set(versions)).toEqual(new Set([API_VERSIONS[contract.version].version]));
  });

  test.each([
    [429, 'rate_limited'],
    [503, 'retryable'],
    [500, 'retryable'],
  ] as const)('a %i from the platform is classified %s', async (status, code) => {
    platforms.conversions.failures.set(contract.received, { status, until: Date.now() + 60_000, rate: 1 });
    const error = await refusal(delivery().send(session, account, target, [contract.event(2, user)]));
    expect({ platform: error.platform, code: error.code }).toEqual({ platform: contract.platform, code });
  });

  test('a batch over the documented maximum is refused by the platform and classified invalid', async () => {
    const events = Array.from({ length: contract.maxEvents.count + 1 }, (_, serial) => contract.event(serial, user));
    const error = await refusal(delivery().send(session, account, target, events));
    expect(error.code).toBe('invalid');
  });

  test('a login the user removed is classified needs_reauth', async () => {
    platforms.revokeAll(contract.provider);
    const error = await refusal(delivery().send(session, account, target, [contract.event(3, user)]));
    expect(error.code).toBe('needs_reauth');
  });
});
