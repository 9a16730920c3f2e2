/**
 * The sandbox's directory of known people: who the fake Meta, Google and Microsoft "know", in the
 * messy spellings people type into forms (capitals, stray spaces, Gmail dots and +tags, phones as
 * "+1 (650) 555-1212", "0044 20 7946 0958" or "(650) 555-1212", names like "Mary Ann", "O'Brien",
 * "José"). Each person also carries what is true of them whatever the spelling: the phone in E.164
 * and the country. Each fake derives, from these, the hash of every person in the form its platform
 * documents (sandbox/<platform>/matching.ts) and matches what it receives against that (sandbox/matching.ts).
 *
 * Deterministic: the same 120 people every run. A phone written without "+" or "00" is in the
 * person's own country (their countryCode), as an app's default country would read it.
 */

export interface KnownPerson {
  id: string;
  /** As typed. */
  email: string;
  phone: string;
  firstName: string;
  lastName: string;
  city: string;
  /** A US state's two letters; elsewhere the region's name or nothing. */
  state?: string;
  postalCode: string;
  /** ISO 3166-1 alpha-2, as typed (case varies). */
  countryCode: string;
  /** YYYY-MM-DD. */
  dateOfBirth: string;
  gender: 'f' | 'm';
  /** What is true whatever the spelling: the phone in E.164 ("+16505551212"). */
  phoneE164: string;
  /** Click ids of this person's ad clicks: a Microsoft click id (32 hex) and a Google click id. */
  msclkid: string;
  gclid: string;
}

const FIRST: ReadonlyArray<readonly [string, 'f' | 'm']> = [
  ['Mary Ann', 'f'],
  ['José', 'm'],
  ['Zoë', 'f'],
  ["D'Angelo", 'm'],
  ['Anne-Marie', 'f'],
  ['Jean Luc', 'm'],
  ['Ada', 'f'],
  ['Grace', 'f'],
  ['Alan', 'm'],
  ['Linus', 'm'],
  ['Siobhán', 'f'],
  ['Björn', 'm'],
  ['Chloé', 'f'],
  ['Renée', 'f'],
  ['Liam', 'm'],
  ['Olivia', 'f'],
  ['Noah', 'm'],
  ['Emma', 'f'],
  ['Mateo', 'm'],
  ['Sofia', 'f'],
  ['Oliver', 'm'],
  ['Amelia', 'f'],
  ['Lucas', 'm'],
  ['Mia', 'f'],
  ['Ethan', 'm'],
  ['Harper', 'f'],
  ['Ravi', 'm'],
  ['Priya', 'f'],
  ['Kenji', 'm'],
  ['Yuki', 'f'],
];

const LAST = [
  "O'Brien",
  'García',
  'van der Berg',
  'Smith-Jones',
  'Müller',
  'MacDonald',
  'Lovelace',
  'Hopper',
  'Turing',
  'Nguyen',
  'St. John',
  'De La Cruz',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Miller',
  'Davis',
  'Rodríguez',
  'Martinez',
  'Hernández',
  'Lopez',
  'Wilson',
  'Anderson',
  'Thomas',
  'Taylor',
  'Moore',
  'Jackson',
  'Martin',
  "O'Neil",
];

/** Where people live: a country, its cities with a state (US) and a postal code, and how its phones are written. */
interface Place {
  country: string;
  city: string;
  state?: string;
  postal: string;
  /** Country calling code and a national significant number made from the person's index. */
  callingCode: string;
  national: (n: number) => string;
  /** How the number is typed: international, with 00, or as dialled at home. */
  typed: ReadonlyArray<(cc: string, nsn: string) => string>;
}

const pad = (n: number, width: number) => String(n % 10 ** width).padStart(width, '0');

const US_TYPED = [
  (cc: string, n: string) => `+${cc} (${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}`,
  (_cc: string, n: string) => `(${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}`,
  (_cc: string, n: string) => `${n.slice(0, 3)}.${n.slice(3, 6)}.${n.slice(6)}`,
  (cc: string, n: string) => `00${cc} ${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}`,
  (cc: string, n: string) => `+${cc}${n}`,
];

const PLACES: readonly Place[] = [
  {
    country: 'US',
    city: 'Mountain View',
    state: 'CA',
    postal: '94043-1351',
    callingCode: '1',
    national: (n) => `650253${pad(n, 4)}`,
    typed: US_TYPED,
  },
  {
    country: 'us',
    city: 'St. Louis',
    state: ' mo',
    postal: '63101',
    callingCode: '1',
    national: (n) => `314436${pad(n, 4)}`,
    typed: US_TYPED,
  },
  {
    country: 'US',
    city: 'New York',
    state: 'NY ',
    postal: '10001',
    callingCode: '1',
    national: (n) => `212736${pad(n, 4)}`,
    typed: US_TYPED,
  },
  {
    country: 'US',
    city: 'Winston-Salem',
    state: 'nc',
    postal: '27101-2345',
    callingCode: '1',
    national: (n) => `336725${pad(n, 4)}`,
    typed: US_TYPED,
  },
  {
    country: 'GB',
    city: 'London',
    postal: 'SW1A 1AA',
    callingCode: '44',
    national: (n) => `2079460${pad(n, 3)}`,
    typed: [
      (cc, n) => `00${cc} ${n.slice(0, 2)} ${n.slice(2, 6)} ${n.slice(6)}`,
      (cc, n) => `+${cc} ${n.slice(0, 2)} ${n.slice(2, 6)} ${n.slice(6)}`,
      (_cc, n) => `0${n.slice(0, 2)} ${n.slice(2, 6)} ${n.slice(6)}`,
      (cc, n) => `+${cc} (0)${n.slice(0, 2)} ${n.slice(2)}`,
    ],
  },
  {
    country: 'DE',
    city: 'Berlin',
    state: 'Berlin',
    postal: '10115',
    callingCode: '49',
    national: (n) => `3090182${pad(n, 3)}`,
    typed: [
      (cc, n) => `+${cc} ${n.slice(0, 2)} ${n.slice(2)}`,
      (cc, n) => `00${cc}-${n.slice(0, 2)}-${n.slice(2)}`,
      (_cc, n) => `0${n.slice(0, 2)} ${n.slice(2)}`,
    ],
  },
  {
    country: 'fr',
    city: 'Paris',
    postal: '75008',
    callingCode: '33',
    national: (n) => `1426853${pad(n, 2)}`,
    typed: [
      (cc, n) => `+${cc} ${n[0]} ${n.slice(1, 3)} ${n.slice(3, 5)} ${n.slice(5, 7)} ${n.slice(7)}`,
      (_cc, n) => `0${n[0]} ${n.slice(1, 3)} ${n.slice(3, 5)} ${n.slice(5, 7)} ${n.slice(7)}`,
    ],
  },
  {
    country: 'AU',
    city: 'Sydney',
    state: 'NSW',
    postal: '2000',
    callingCode: '61',
    national: (n) => `293744${pad(n, 3)}`,
    typed: [(cc, n) => `+${cc} ${n[0]} ${n.slice(1, 5)} ${n.slice(5)}`, (_cc, n) => `(0${n[0]}) ${n.slice(1, 5)} ${n.slice(5)}`],
  },
];

const DOMAINS = ['gmail.com', 'GMail.com', 'googlemail.com', 'example.com', 'Outlook.com', 'example.org'];

/** Letters a-z and digits of a name, for an email's local part ("José" → "jose", "O'Brien" → "obrien"). */
const ascii = (value: string) =>
  value
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

/** A name as someone typed it: as is, in capitals, with stray spaces, or in lowercase. */
function typedName(name: string, index: number): string {
  switch (index % 4) {
    case 1:
      return name.toUpperCase();
    case 2:
      return `  ${name.replace(/ /g, '  ')} `;
    case 3:
      return name.toLowerCase();
    default:
      return name;
  }
}

function typedEmail(first: string, last: string, index: number): string {
  const domain = DOMAINS[index % DOMAINS.length]!;
  const local = `${ascii(first)}.${ascii(last)}${index}`;
  switch (index % 5) {
    case 0:
      return `${local.replace(/^./, (c) => c.toUpperCase())}+promo@${domain}`;
    case 1:
      return `  ${local.toUpperCase()}@${domain} `;
    case 2:
      return `${ascii(first)}.${ascii(last)}.${index}@${domain}`;
    case 3:
      return `${local}+news.letter@${domain.toUpperCase()}`;
    default:
      return `${local}@${domain}`;
  }
}

function person(index: number): KnownPerson {
  const [first, gender] = FIRST[index % FIRST.length]!;
  const last = LAST[(index * 7) % LAST.length]!;
  const place = PLACES[index % PLACES.length]!;
  const nsn = place.national(index);
  const typePhone = place.typed[Math.floor(index / PLACES.length) % place.typed.length]!;
  const year = 1950 + ((index * 13) % 55);
  const month = 1 + ((index * 5) % 12);
  const day = 1 + ((index * 11) % 28);
  const hex = (seed: number) =>
    Array.from({ length: 32 }, (_, position) => ((seed * 31 + position * 17 + ((seed >> (position % 8)) & 7)) % 16).toString(16)).join('');
  return {
    id: `person-${pad(index, 3)}`,
    email: typedEmail(first, last, index),
    phone: typePhone(place.callingCode, nsn),
    firstName: typedName(first, index),
    lastName: typedName(last, index + 1),
    city: index % 3 === 0 ? place.city.toUpperCase() : place.city,
    ...(place.state ? { state: place.state } : {}),
    postalCode: index % 4 === 2 ? place.postal.toLowerCase() : place.postal,
    countryCode: place.country,
    dateOfBirth: `${year}-${pad(month, 2)}-${pad(day, 2)}`,
    gender,
    phoneE164: `+${place.callingCode}${nsn}`,
    msclkid: hex(index + 1),
    gclid: `Cj0KCQiA${pad(index, 4)}sandbox`,
  };
}

/** The 120 people every fake platform knows. */
export const KNOWN_PEOPLE: readonly KnownPerson[] = Array.from({ length: 120 }, (_, index) => person(index));
