import SelectField from '@/components/ui/SelectField';
import TextField from '@/components/ui/TextField';
import type { Consent, ConsentValue } from '@/lib/shared/conversions/event';

/**
 * A source's defaults for its events (an app, a payment account, a warehouse read): the country a
 * phone written without one is read in, and the consent of an event that says nothing ("Not set"
 * sends none). Used by the app page, the payment account form and the warehouse source form.
 */
export default function SourceDefaultsFields({
  id,
  country,
  onCountry,
  consent,
  onConsent,
  countryError,
}: {
  id: string;
  country: string;
  onCountry: (value: string) => void;
  /** Absent: the source takes no consent default (payment accounts). */
  consent?: Consent;
  onConsent?: (value: Consent) => void;
  countryError?: string;
}) {
  const options = [
    { value: 'granted', label: 'Granted' },
    { value: 'denied', label: 'Denied' },
  ];
  const set = (question: keyof Consent, value: string) => {
    const next: Consent = { ...consent };
    if (value) next[question] = value as ConsentValue;
    else delete next[question];
    onConsent?.(next);
  };
  return (
    <fieldset className="stack" style={{ border: 'none', padding: 0, margin: 0 }}>
      <legend className="muted">Defaults for its events</legend>
      <TextField
        id={`${id}-country`}
        label="Default country (two letters, e.g. US)"
        value={country}
        onChange={(event) => onCountry(event.target.value.toUpperCase())}
        maxLength={2}
        autoComplete="off"
        aria-describedby={`${id}-country-hint`}
        error={countryError}
      />
      <span id={`${id}-country-hint`} className="muted">
        Phones written without + or 00 are read in this country; without one they are not sent.
      </span>
      {onConsent && (
        <>
          <SelectField
            id={`${id}-consent-data`}
            label="Consent to ad user data, when an event says nothing"
            value={consent?.adUserData ?? ''}
            onChange={(value) => set('adUserData', value)}
            options={options}
            placeholder="Not set"
          />
          <SelectField
            id={`${id}-consent-personalization`}
            label="Consent to ad personalization, when an event says nothing"
            value={consent?.adPersonalization ?? ''}
            onChange={(value) => set('adPersonalization', value)}
            options={options}
            placeholder="Not set"
          />
        </>
      )}
    </fieldset>
  );
}
