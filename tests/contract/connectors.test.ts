import { PlatformError } from '@/lib/server/connectors/errors';
import { CONNECTOR_IDS, connectorFor } from '@/lib/server/connectors/registry';
import type { Connector, Session } from '@/lib/server/connectors/types';
import { hashPerson } from '@/lib/server/delivery/normalize';
import { adRowKey, type AdRow } from '@/lib/shared/connections/rows';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { consentTo, type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import type { Capability, ContractCase, Login, Person, SentRequest } from '@/tests/contract/case';
import { CASES } from '@/tests/contract/cases';
import { type RecordingProxy, startRecordingProxy } from '@/tests/contract/proxy';
import { spyOnLog, type LogSpy } from '@/tests/fixtures/logSpy';

// One contract, every connector, against its fake: batches never above the platform's maximum, each
// identifier in the platform's documented form, the pinned version on every request, each documented
// refusal classified, a rerun of a read or a write idempotent. The facts are each platform's case
// (sandbox/<slug>/contract.ts); what was sent is read off a recording proxy in front of the fakes.
const APP_URL = 'http://localhost:3999';
const REDIRECT_URI = `${APP_URL}/addConversionDestination`;
const CAPABILITIES: Capability[] = ['deliver', 'report', 'writer'];

/**
 * People in clear whose identifiers each platform writes differently before hashing: case and spaces,
 * a Gmail address with dots and a +tag, phones in several writings, names with punctuation; the
 * last has no name, so no address goes to Google.
 */
const PEOPLE: Person[] = [
  {
    email: ' Jane.Doe+Promo@GMail.com ',
    phone: '+1 (650) 555-1212',
    firstName: 'Mary  Ann',
    lastName: "O'Brien",
    countryCode: 'US',
    postalCode: '94043',
  },
  {
    email: 'John.Smith@Example.COM',
    phone: '0044 20 7946 0958',
    firstName: 'John',
    lastName: 'Smith-Jones',
    countryCode: 'GB',
    postalCode: 'SW1A 1AA',
  },
  { email: 'ana@example.org', phone: '650 555 0100', countryCode: 'US' },
];

let fake: FakePlatforms;
let proxy: RecordingProxy;
let logged: LogSpy;

/** The fakes' environment, with every address of theirs pointed at the proxy. */
const proxiedEnv = (env: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value.split(fake.url).join(proxy.url)]));

beforeAll(async () => {
  // Refusals are logged for operators; here they are expected.
  logged = spyOnLog();
  fake = await startFakePlatforms({ appUrl: APP_URL });
  proxy = await startRecordingProxy(fake.url);
  Object.assign(process.env, proxiedEnv(platformsEnv(fake)));
});
afterAll(async () => {
  logged.mockRestore();
  await proxy.close();
  await fake.close();
});

async function logIn(connector: Connector, login: Login): Promise<Session> {
  if ('key' in login) return connector.openSession((await connector.auth.key!.connect(login.key(fake))).credential);
  const oauth = connector.auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl(`contract-${connector.id}`, REDIRECT_URI));
  return connector.openSession((await oauth.exchangeCode(returned.searchParams.get('code')!, REDIRECT_URI)).credential);
}

/** The n-th event of a delivery: the case's event with the n-th person hashed as ingest hashes them. */
function eventFor(contract: ContractCase, n: number): ConversionEvent {
  const { user, address } = hashPerson(PEOPLE[n % PEOPLE.length]!);
  return { ...contract.deliver!.event(n), user, ...(address ? { address } : {}) };
}

/** Batches as the delivery router cuts them: the connector's maxBatch events at most. */
function batches<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));
}

async function readAll(connector: Connector, session: Session, contract: ContractCase): Promise<AdRow[]> {
  const { account, level, window } = contract.report!;
  const rows: AdRow[] = [];
  for await (const page of connector.report!(session, { account, level, ...window() })) rows.push(...page);
  return rows.sort((a, b) => adRowKey(a).localeCompare(adRowKey(b)));
}

const sortedJson = (rows: Array<Record<string, unknown>>) => rows.map((row) => JSON.stringify(row)).sort();

/** Runs a capability once, as its refusal test needs: one event, one read, one write. */
async function exercise(capability: Capability, connector: Connector, session: Session, contract: ContractCase): Promise<void> {
  if (capability === 'deliver') {
    const { account, target } = contract.deliver!;
    await connector.deliver!.send(session, account, target, [eventFor(contract, 0)]);
  } else if (capability === 'report') await readAll(connector, session, contract);
  else {
    const { target, slice, rows } = contract.writer!;
    await connector.writer!.replace(session, target, slice, rows);
  }
}

/** Why a request does not carry its API's pinned version, or null when it does. */
function versionProblem(contract: ContractCase, request: SentRequest): string | null {
  const api = contract.apis.find((candidate) => candidate.requests.test(request.path));
  if (!api) return `${request.method} ${request.path}: no API of the case covers it`;
  if (api.version === null) return null;
  if ('header' in api.version)
    return request.headers[api.version.header] === api.version.value
      ? null
      : `${request.method} ${request.path}: ${api.api} is pinned to ${api.version.header}: ${api.version.value}`;
  if (request.path.includes(api.version.path)) return null;
  return `${request.method} ${request.path}: ${api.api} is pinned to ${api.version.path}`;
}

test('every connector that delivers, reports or writes has a case', () => {
  const capable = CONNECTOR_IDS.filter((id) => CAPABILITIES.some((capability) => connectorFor(id)[capability] !== undefined));
  expect(CASES.map((contract) => contract.id).sort()).toEqual(capable.sort());
});

describe.each(CASES)('$id', (contract) => {
  const connector = connectorFor(contract.id);
  const describeIf = (capability: Capability) => (contract[capability] ? describe : describe.skip);
  let session: Session;
  /** Every request of the checks below, as sent (the login's aside). */
  const sent: SentRequest[] = [];
  const keep = () => {
    sent.push(...proxy.requests);
    proxy.clear();
  };

  beforeAll(async () => {
    session = await logIn(connector, contract.login);
    proxy.clear();
  });

  test('each capability of the connector is checked, or the case says why not', () => {
    const has = CAPABILITIES.filter((capability) => connector[capability] !== undefined);
    const covered = CAPABILITIES.filter((capability) => contract[capability] !== undefined || contract.unchecked?.[capability]);
    expect(covered).toEqual(has);
  });

  describeIf('deliver')('delivering conversions', () => {
    const { maxEvents = 0, eventsOf = () => [], identifiers = [] } = contract.deliver ?? {};
    /** Twice the maximum and one more: two full requests and one of a single event. */
    const count = 2 * maxEvents + 1;
    let requests: SentRequest[] = [];
    const refused: string[] = [];

    beforeAll(async () => {
      const { account, target } = contract.deliver!;
      const events = Array.from({ length: count }, (_, n) => eventFor(contract, n));
      for (const batch of batches(events, connector.deliver!.maxBatch)) {
        await connector.deliver!.send(session, account, target, batch).catch((error: unknown) => refused.push(String(error)));
      }
      requests = proxy.requests.filter((request) => eventsOf(request).length > 0);
      keep();
    });

    test(`twice the documented maximum and one more events (${count}) go in three requests, none above the maximum`, () => {
      const sizes = requests.map((request) => eventsOf(request).length);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(maxEvents);
      expect(sizes).toHaveLength(Math.ceil(count / maxEvents));
      expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(count);
      expect(refused).toEqual([]);
    });

    test('each identifier is in the form the platform documents', () => {
      const wire = requests.flatMap(eventsOf);
      expect(wire).toHaveLength(count);
      // One line per identifier and person sent wrong, however many of their events were.
      const wrong = new Map<string, { identifier: string; person: number; expected: string | undefined; sent: unknown }>();
      wire.forEach((event, n) => {
        const person = n % PEOPLE.length;
        for (const { name, read, expected } of identifiers) {
          const want = expected(PEOPLE[person]!);
          const got = read(event) ?? undefined;
          if (got !== want) wrong.set(`${name}/${person}`, { identifier: name, person, expected: want, sent: got });
        }
      });
      expect([...wrong.values()]).toEqual([]);
      // Every identifier is sent for someone: a check that never meets a value proves nothing.
      expect(identifiers.filter(({ read }) => wire.every((event) => read(event) === undefined || read(event) === null))).toEqual([]);
    });
  });

  describeIf('report')('reading ad performance', () => {
    test('the same window read twice yields the same rows', async () => {
      const first = await readAll(connector, session, contract);
      const second = await readAll(connector, session, contract);
      keep();
      expect(first.length).toBeGreaterThan(0);
      expect(second).toEqual(first);
    });
  });

  describeIf('writer')('writing rows', () => {
    test('the same slice replaced twice leaves the same rows, one per row', async () => {
      const { target, slice, rows, stored } = contract.writer!;
      await connector.writer!.replace(session, target, slice, rows);
      const once = sortedJson(stored(fake));
      await connector.writer!.replace(session, target, slice, rows);
      const twice = sortedJson(stored(fake));
      keep();
      expect(once).toHaveLength(rows.length);
      expect(twice).toEqual(once);
    });
  });

  describe('refusals the platform documents', () => {
    test.each(contract.refusals)('$during: $what → $kind', async ({ during, answer, kind }) => {
      expect(contract[during]).toBeDefined();
      proxy.refuse(answer);
      const error = await exercise(during, connector, session, contract).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      proxy.refuse(null);
      keep();
      expect(error).toBeInstanceOf(PlatformError);
      expect((error as PlatformError).code).toBe(kind);
    });
  });

  test('every request carries the API version its connector folder pins (version.ts)', () => {
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.map((request) => versionProblem(contract, request)).filter(Boolean)).toEqual([]);
  });
});
