import { useState, type FormEvent } from 'react';
import { fieldErrorOf, messageOf } from '@/components/integrations/shared';
import SourceDefaultsFields from '@/components/conversions/SourceDefaultsFields';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';
import {
  CUSTOM_FIELD_KEYS,
  GTM_MESSAGE,
  isGtmContainerId,
  PAYLOAD_CHARACTERS_MESSAGE,
  PAYLOAD_HOST_MESSAGE,
  payloadUrlHasBadCharacters,
  payloadUrlHasHost,
  type AppFields,
  type AppInput,
  type CustomFieldKey,
  type CustomFields,
} from '@/lib/shared/integrations/apps';

const CUSTOM_FIELD_LABELS: Record<CustomFieldKey, string> = {
  email: 'Email field',
  phone: 'Phone field',
  firstName: 'First name field',
  lastName: 'Last name field',
  city: 'City field',
  state: 'State field',
  postalCode: 'Postal code field',
  countryCode: 'Country field',
  dateOfBirth: 'Date of birth field',
  gender: 'Gender field',
};

interface Props {
  initial: AppFields;
  submitLabel: string;
  busy: boolean;
  serverError: unknown;
  onSubmit: (fields: AppInput) => void;
}

/** The same rules as the server (docs/PRODUCT.md §7), checked before sending so the user sees them at once. */
function validate(fields: AppInput): Record<string, string> {
  const errors: Record<string, string> = {};
  // The tag manager is optional: the snippet works pasted into the site's pages too.
  if (fields.gtmContainerId && !isGtmContainerId(fields.gtmContainerId)) errors.gtmContainerId = GTM_MESSAGE;
  const bad = fields.payloadUrls.find((url) => payloadUrlHasHost(url));
  if (bad) errors.payloadUrls = PAYLOAD_HOST_MESSAGE;
  else if (fields.payloadUrls.some((url) => !url.startsWith('/'))) errors.payloadUrls = 'A thank-you page path starts with /';
  else if (fields.payloadUrls.some(payloadUrlHasBadCharacters)) errors.payloadUrls = PAYLOAD_CHARACTERS_MESSAGE;
  return errors;
}

export default function AppForm({ initial, submitLabel, busy, serverError, onSubmit }: Props) {
  const [name, setName] = useState(initial.name);
  const [websiteUrl, setWebsiteUrl] = useState(initial.websiteUrl);
  const [gtmContainerId, setGtm] = useState(initial.gtmContainerId ?? '');
  const [payloadText, setPayloadText] = useState(initial.payloadUrls.join('\n'));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [country, setCountry] = useState(initial.defaultCountry ?? '');
  const [consent, setConsent] = useState(initial.defaultConsent ?? {});
  const [customFields, setCustomFields] = useState<CustomFields>(initial.customFields ?? {});
  const [showCustomFields, setShowCustomFields] = useState(Object.keys(initial.customFields ?? {}).length > 0);

  function submit(event: FormEvent) {
    event.preventDefault();
    const fields = {
      name,
      websiteUrl,
      gtmContainerId: gtmContainerId.trim() || null,
      payloadUrls: payloadText
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
      defaultCountry: country.trim() === '' ? null : country.trim(),
      defaultConsent: consent,
      customFields: Object.fromEntries(
        Object.entries(customFields).flatMap(([key, value]) => (typeof value === 'string' && value.trim() ? [[key, value.trim()]] : [])),
      ) as CustomFields,
    };
    const found = validate(fields);
    if (fields.defaultCountry && !/^[A-Za-z]{2}$/.test(fields.defaultCountry)) found.defaultCountry = 'A two-letter country code, e.g. US';
    setErrors(found);
    if (Object.keys(found).length === 0) onSubmit(fields);
  }

  const serverPayloadError = Object.entries(
    (serverError as { fieldErrors?: Record<string, string[]> } | undefined)?.fieldErrors ?? {},
  ).find(([key]) => key.startsWith('payloadUrls'))?.[1]?.[0];
  const payloadError = errors.payloadUrls ?? serverPayloadError;
  return (
    <form className="stack" onSubmit={submit} noValidate aria-label="App details">
      {Boolean(serverError) && !fieldErrorOf(serverError, 'gtmContainerId') && !serverPayloadError && (
        <Alert>{messageOf(serverError, 'Could not save the app.')}</Alert>
      )}
      <TextField
        label="Name"
        value={name}
        onChange={(event) => setName(event.target.value)}
        required
        maxLength={100}
        error={fieldErrorOf(serverError, 'name')}
      />
      <TextField
        label="Website URL"
        type="url"
        value={websiteUrl}
        onChange={(event) => setWebsiteUrl(event.target.value)}
        placeholder="https://www.example.com"
        required
        error={fieldErrorOf(serverError, 'websiteUrl')}
      />
      <div className="stack" style={{ gap: '0.25rem' }}>
        <TextField
          label="Google Tag Manager container id (optional)"
          value={gtmContainerId}
          onChange={(event) => setGtm(event.target.value)}
          placeholder="GTM-XXXXXXX"
          aria-describedby="gtm-hint"
          error={errors.gtmContainerId ?? fieldErrorOf(serverError, 'gtmContainerId')}
        />
        <span id="gtm-hint" className="muted">
          Leave it empty if your site has no Tag Manager (most Shopify stores): the snippet is then pasted into your pages.
        </span>
      </div>
      <div className="field">
        <label htmlFor="payload-urls">Thank-you page paths (one per line)</label>
        <textarea
          id="payload-urls"
          rows={4}
          value={payloadText}
          onChange={(event) => setPayloadText(event.target.value)}
          placeholder={'/checkout/thank-you\n/signup/complete'}
          aria-invalid={Boolean(payloadError)}
          aria-describedby={payloadError ? 'payload-urls-error' : 'payload-urls-hint'}
        />
        {payloadError ? (
          <span id="payload-urls-error" className="field__error">
            {payloadError}
          </span>
        ) : (
          <span id="payload-urls-hint" className="muted">
            The pages a visitor reaches after a form or a purchase, as paths without the host: the snippet sends the form filled in before
            them. (Technically, the app&apos;s payload URLs.)
          </span>
        )}
      </div>
      <SourceDefaultsFields
        id="app-defaults"
        country={country}
        onCountry={setCountry}
        consent={consent}
        onConsent={setConsent}
        countryError={errors.defaultCountry ?? fieldErrorOf(serverError, 'defaultCountry')}
      />
      <div className="stack">
        <div>
          <Button
            type="button"
            variant="secondary"
            aria-expanded={showCustomFields}
            aria-controls="custom-fields"
            onClick={() => setShowCustomFields(!showCustomFields)}
          >
            {showCustomFields ? 'Hide your form’s field names' : 'Name your form’s own fields (optional)'}
          </Button>
        </div>
        {showCustomFields && (
          <div id="custom-fields" className="stack">
            <p className="muted">
              The snippet finds the usual fields (email, phone, first_name …) by itself; name a field here when your form calls it something
              else.
            </p>
            {CUSTOM_FIELD_KEYS.map((key) => (
              <TextField
                key={key}
                id={`custom-field-${key}`}
                label={CUSTOM_FIELD_LABELS[key]}
                value={customFields[key] ?? ''}
                onChange={(event) => setCustomFields({ ...customFields, [key]: event.target.value })}
                maxLength={100}
                autoComplete="off"
                spellCheck={false}
                error={fieldErrorOf(serverError, `customFields.${key}`)}
              />
            ))}
          </div>
        )}
      </div>
      <div className="actions" style={{ justifyContent: 'flex-start' }}>
        <Button type="submit" busy={busy}>
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
