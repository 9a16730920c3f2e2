import { useEffect } from 'react';
import { issuesToFieldErrors } from '@/lib/shared/fieldErrors';
/**
 * The handler's own schemas, checked before sending; errors keyed like the server's 400 ('schedule.at').
 * They load after the page is shown (zod is not in its first load): until then the form sends and the
 * server's 400 names the fields.
 */

type Schemas = typeof import('@/lib/shared/schemas/connections');
let schemas: Schemas | null = null;

export function loadSchemas(): Promise<unknown> {
  return import('@/lib/shared/schemas/connections').then((loaded) => (schemas = loaded));
}

/** Starts loading the schemas when a form mounts. */
export function useSchemas() {
  useEffect(() => {
    void loadSchemas().catch(() => undefined);
  }, []);
}

const errorsOf = (error: { issues: Parameters<typeof issuesToFieldErrors>[0] } | undefined) => issuesToFieldErrors(error?.issues ?? []);

export const createErrors = (body: unknown) => errorsOf(schemas?.createConnectionSchema.safeParse(body).error);
export const updateErrors = (changes: unknown) => errorsOf(schemas?.updateConnectionSchema.safeParse(changes).error);

/** Every IANA time zone the browser knows, UTC first (Intl lists the zones of places only), for the time zone list. */
export function timeZones(): string[] {
  const intl = Intl as typeof Intl & { supportedValuesOf?: (key: 'timeZone') => string[] };
  try {
    return ['UTC', ...(intl.supportedValuesOf?.('timeZone') ?? []).filter((zone) => zone !== 'UTC')];
  } catch {
    return ['UTC'];
  }
}

const offsets = new Map<string, string>();

/** A time zone's offset from UTC now ("UTC+01:00"), worked out once per zone; empty where Intl cannot say. */
export function offsetOf(timeZone: string): string {
  let offset = offsets.get(timeZone);
  if (offset === undefined) {
    try {
      const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
        .formatToParts(new Date())
        .find((part) => part.type === 'timeZoneName')?.value;
      offset = name ? (name === 'GMT' ? 'UTC+00:00' : name.replace('GMT', 'UTC')) : '';
    } catch {
      offset = '';
    }
    offsets.set(timeZone, offset);
  }
  return offset;
}

export const browserTimeZone = () => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
};

/** The lookback field as the API wants it: a whole number, or the text as is so the schema names the problem. */
export function lookbackOf(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return Number(trimmed);
}
