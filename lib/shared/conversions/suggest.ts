import { COLUMN_FIELDS, type ColumnField, type ColumnMapping } from '@/lib/shared/conversions/conversion';

/** Column names a field usually has, most telling first: a preview fills empty fields from them. */
const USUAL_COLUMNS: Record<ColumnField, string[]> = {
  eventId: ['event_id', 'transaction_id', 'order_id', 'lead_id', 'id', '$insert_id'],
  eventTime: ['event_time', 'converted_at', 'conversion_time', 'closed_at', 'created_at', 'timestamp', 'time'],
  eventName: ['event_name', 'event'],
  email: ['email', 'email_address', '$email'],
  phone: ['phone', 'phone_number', '$phone'],
  firstName: ['first_name', '$first_name'],
  lastName: ['last_name', '$last_name'],
  externalId: ['external_id', 'customer_id', 'user_id', 'distinct_id'],
  city: ['city', '$city', 'billing_city'],
  state: ['state', 'region', '$region', 'billing_state'],
  postalCode: ['postal_code', 'zip', 'zip_code', 'postcode', 'billing_postal_code'],
  countryCode: ['country_code', 'country', '$country_code', 'billing_country'],
  dateOfBirth: ['date_of_birth', 'birth_date', 'dob', 'birthday'],
  gender: ['gender', 'sex'],
  gclid: ['gclid'],
  fbclid: ['fbclid'],
  fbc: ['fbc', '_fbc'],
  fbp: ['fbp', '_fbp'],
  msclkid: ['msclkid'],
  li_fat_id: ['li_fat_id'],
  ttclid: ['ttclid'],
  ttp: ['ttp', '_ttp'],
  value: ['value', 'conversion_value', 'amount', 'revenue'],
  currency: ['currency', 'currency_code'],
};

export interface SuggestedMapping {
  columns: ColumnMapping;
  /** BigQuery's cursor column ('' when none fits; Mixpanel has none). */
  cursorColumn: string;
}

/**
 * Fills the fields (and the cursor) left empty with columns of the usual names that exist; the event
 * time, when no name fits, from the only column holding a time (`timeColumns`, when the types are known).
 */
export function suggestMapping(given: SuggestedMapping, names: string[], timeColumns: string[] = []): SuggestedMapping {
  const present = new Set(names);
  const columns = { ...given.columns };
  for (const field of COLUMN_FIELDS) {
    if (columns[field]) continue;
    const found = USUAL_COLUMNS[field].find((name) => present.has(name));
    if (found) columns[field] = found;
  }
  if (!columns.eventTime && timeColumns.length === 1) columns.eventTime = timeColumns[0]!;
  const cursorColumn =
    given.cursorColumn || (['updated_at', 'modified_at', columns.eventTime ?? ''].find((name) => present.has(name)) ?? '');
  return { columns, cursorColumn };
}
