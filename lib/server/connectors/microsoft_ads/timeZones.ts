/**
 * Microsoft's TimeZoneType values (the account's TimeZone) as IANA zones. Microsoft names a Windows
 * zone by its cities; each maps to the IANA zone Windows' own table gives for it.
 */
const IANA_TIME_ZONES: Record<string, string> = {
  AbuDhabiMuscat: 'Asia/Dubai',
  Adelaide: 'Australia/Adelaide',
  Alaska: 'America/Anchorage',
  AlmatyNovosibirsk: 'Asia/Almaty',
  AmsterdamBerlinBernRomeStockholmVienna: 'Europe/Berlin',
  Arizona: 'America/Phoenix',
  AstanaDhaka: 'Asia/Dhaka',
  AthensBuckarestIstanbul: 'Europe/Athens',
  AtlanticTimeCanada: 'America/Halifax',
  AucklandWellington: 'Pacific/Auckland',
  Azores: 'Atlantic/Azores',
  Baghdad: 'Asia/Baghdad',
  BakuTbilisiYerevan: 'Asia/Baku',
  BangkokHanoiJakarta: 'Asia/Bangkok',
  BeijingChongqingHongKongUrumqi: 'Asia/Shanghai',
  BelgradeBratislavaBudapestLjubljanaPrague: 'Europe/Budapest',
  BogotaLimaQuito: 'America/Bogota',
  Brasilia: 'America/Sao_Paulo',
  Brisbane: 'Australia/Brisbane',
  BrusselsCopenhagenMadridParis: 'Europe/Paris',
  Bucharest: 'Europe/Bucharest',
  BuenosAiresGeorgetown: 'America/Argentina/Buenos_Aires',
  Cairo: 'Africa/Cairo',
  CanberraMelbourneSydney: 'Australia/Sydney',
  CapeVerdeIsland: 'Atlantic/Cape_Verde',
  CaracasLaPaz: 'America/Caracas',
  CasablancaMonrovia: 'Africa/Casablanca',
  CentralAmerica: 'America/Guatemala',
  CentralTimeUSCanada: 'America/Chicago',
  ChennaiKolkataMumbaiNewDelhi: 'Asia/Kolkata',
  ChihuahuaLaPazMazatlan: 'America/Mazatlan',
  Darwin: 'Australia/Darwin',
  EasternTimeUSCanada: 'America/New_York',
  Ekaterinburg: 'Asia/Yekaterinburg',
  FijiKamchatkaMarshallIsland: 'Pacific/Fiji',
  Greenland: 'America/Nuuk',
  GreenwichMeanTimeDublinEdinburghLisbonLondon: 'Europe/London',
  GuadalajaraMexicoCityMonterrey: 'America/Mexico_City',
  GuamPortMoresby: 'Pacific/Port_Moresby',
  HararePretoria: 'Africa/Johannesburg',
  Hawaii: 'Pacific/Honolulu',
  HelsinkiKyivRigaSofiaTallinnVilnius: 'Europe/Helsinki',
  Hobart: 'Australia/Hobart',
  IndianaEast: 'America/Indiana/Indianapolis',
  InternationalDateLineWest: 'Etc/GMT+12',
  // The Customer Management service's older spelling of the same zone.
  InternationalDatelineWest: 'Etc/GMT+12',
  IrkutskUlaanBataar: 'Asia/Irkutsk',
  IslamabadKarachiTashkent: 'Asia/Karachi',
  Jerusalem: 'Asia/Jerusalem',
  Kabul: 'Asia/Kabul',
  Kathmandu: 'Asia/Kathmandu',
  Krasnoyarsk: 'Asia/Krasnoyarsk',
  KualaLumpurSingapore: 'Asia/Singapore',
  KuwaitRiyadh: 'Asia/Riyadh',
  MidAtlantic: 'Atlantic/South_Georgia',
  MidwayIslandAndSamoa: 'Pacific/Pago_Pago',
  MoscowStPetersburgVolgograd: 'Europe/Moscow',
  MountainTimeUSCanada: 'America/Denver',
  Nairobi: 'Africa/Nairobi',
  Newfoundland: 'America/St_Johns',
  Nukualofa: 'Pacific/Tongatapu',
  OsakaSapporoTokyo: 'Asia/Tokyo',
  PacificTimeUSCanadaTijuana: 'America/Los_Angeles',
  Perth: 'Australia/Perth',
  Rangoon: 'Asia/Yangon',
  Santiago: 'America/Santiago',
  SarajevoSkopjeWarsawZagreb: 'Europe/Warsaw',
  Saskatchewan: 'America/Regina',
  Seoul: 'Asia/Seoul',
  SolomonIslandNewCaledonia: 'Pacific/Guadalcanal',
  SriJayawardenepura: 'Asia/Colombo',
  Taipei: 'Asia/Taipei',
  Tehran: 'Asia/Tehran',
  Vladivostok: 'Asia/Vladivostok',
  WestCentralAfrica: 'Africa/Lagos',
  Yakutsk: 'Asia/Yakutsk',
};

/**
 * Where the Reporting service's ReportTimeZone value set spells a zone differently from the account's
 * TimeZoneType (Customer Management). ReportTimeZone takes only its own values: the account spelling
 * of Midway (`MidwayIslandAndSamoa`) is refused, its report value is `MidwayIslandandSamoa`. Source:
 * "ReportTimeZone Value Set - Reporting" and "TimeZoneType Value Set - Customer Management",
 * learn.microsoft.com/advertising (MicrosoftDocs/Advertising on GitHub).
 */
export const REPORT_TIME_ZONE_SPELLING: Record<string, string> = {
  AthensBuckarestIstanbul: 'AthensIslandanbulMinsk',
  IslamabadKarachiTashkent: 'IslandamabadKarachiTashkent',
  SolomonIslandNewCaledonia: 'MagadanSolomonIslandNewCaledonia',
  MidwayIslandAndSamoa: 'MidwayIslandandSamoa',
  InternationalDatelineWest: 'InternationalDateLineWest',
};

/** Every account TimeZone value we read (the keys of our IANA table), for tests that check each one. */
export const ACCOUNT_TIME_ZONES: readonly string[] = Object.keys(IANA_TIME_ZONES);

/** The ReportTimeZone value for an account's TimeZone, or undefined when the zone is not one we know. */
export const reportTimeZoneOf = (timeZone: string | null | undefined): string | undefined =>
  timeZone && IANA_TIME_ZONES[timeZone] ? (REPORT_TIME_ZONE_SPELLING[timeZone] ?? timeZone) : undefined;

/** The IANA zone of a Microsoft TimeZone value, or null when it is not one we know. */
export const ianaTimeZone = (timeZone: string | null | undefined): string | null => (timeZone && IANA_TIME_ZONES[timeZone]) || null;
