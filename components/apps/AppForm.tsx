import { useState, type FormEvent } from 'react';
import { fieldErrorOf, messageOf } from '@/components/integrations/shared';
import SourceDefaultsFields from '@/components/conversions/SourceDefaultsFields';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';
import {
  GTM_MESSAGE,
  isGtmContainerId,
  PAYLOAD_HOST_MESSAGE,
  payloadUrlHasHost,
  type AppFields,
  type AppInput,
} from '@/lib/shared/integrations/apps';

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
  if (!isGtmContainerId(fields.gtmContainerId.trim())) errors.gtmContainerId = GTM_MESSAGE;
  const bad = fields.payloadUrls.find((url) => payloadUrlHasHost(url));
  if (bad) errors.payloadUrls = PAYLOAD_HOST_MESSAGE;
  else if (fields.payloadUrls.some((url) => !url.startsWith('/'))) errors.payloadUrls = 'A payload URL is a path starting with /';
  return errors;
}

export default function AppForm({ initial, submitLabel, busy, serverError, onSubmit }: Props) {
  const [name, setName] = useState(initial.name);
  const [websiteUrl, setWebsiteUrl] = useState(initial.websiteUrl);
  const [gtmContainerId, setGtm] = useState(initial.gtmContainerId);
  const [payloadText, setPayloadText] = useState(initial.payloadUrls.join('\n'));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [country, setCountry] = useState(initial.defaultCountry ?? '');
  const [consent, setConsent] = useState(initial.defaultConsent ?? {});

  function submit(event: FormEvent) {
    event.preventDefault();
    const fields = {
      name,
      websiteUrl,
      gtmContainerId: gtmContainerId.trim(),
      payloadUrls: payloadText
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
      defaultCountry: country.trim() === '' ? null : country.trim(),
      defaultConsent: consent,
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
      <TextField
        label="Google Tag Manager container id"
        value={gtmContainerId}
        onChange={(event) => setGtm(event.target.value)}
        placeholder="GTM-XXXXXXX"
        required
        error={errors.gtmContainerId ?? fieldErrorOf(serverError, 'gtmContainerId')}
      />
      <div className="field">
        <label htmlFor="payload-urls">Payload URLs (one path per line)</label>
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
            Paths on your website where a conversion happens, without the host.
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
      <div className="actions" style={{ justifyContent: 'flex-start' }}>
        <Button type="submit" busy={busy}>
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
