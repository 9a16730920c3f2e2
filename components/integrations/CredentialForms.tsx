import { useState, type FormEvent } from 'react';
import { fieldErrorOf, messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';
import { MIXPANEL_RESIDENCIES, type Integration } from '@/lib/shared/integrations/platforms';
import { useCreateDestinationMutation } from '@/store/integrationsApi';
import FieldError from '@/components/ui/FieldError';

interface FormProps {
  orgId: string;
  onCreated: (destination: Integration) => void;
}

/** Mixpanel: a service account (username + secret), the project id and its data residency, checked on save. */
export function MixpanelForm({ orgId, onCreated }: FormProps) {
  const [values, setValues] = useState({ name: 'Mixpanel', username: '', secret: '', projectId: '', residency: 'US' });
  const [create, { isLoading, error }] = useCreateDestinationMutation();
  const set = (field: keyof typeof values) => (event: { target: { value: string } }) =>
    setValues({ ...values, [field]: event.target.value });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const result = await create({ orgId, body: { platform: 'mixpanel', ...values } });
    if ('data' in result && result.data) onCreated(result.data.destination);
  }

  return (
    <form className="stack card" onSubmit={submit} aria-labelledby="mixpanel-title">
      <h3 id="mixpanel-title">Mixpanel</h3>
      <p className="muted">Create a service account in Mixpanel (Organization settings → Service accounts) with access to your project.</p>
      {error && !fieldErrorOf(error, 'secret') && <Alert>{messageOf(error, 'Could not connect Mixpanel.')}</Alert>}
      <TextField label="Name" value={values.name} onChange={set('name')} required error={fieldErrorOf(error, 'name')} />
      <TextField
        label="Service account username"
        value={values.username}
        onChange={set('username')}
        required
        autoComplete="off"
        error={fieldErrorOf(error, 'username')}
      />
      <TextField
        label="Service account secret"
        type="password"
        value={values.secret}
        onChange={set('secret')}
        required
        autoComplete="new-password"
        error={fieldErrorOf(error, 'secret')}
      />
      <TextField
        label="Project id"
        inputMode="numeric"
        value={values.projectId}
        onChange={set('projectId')}
        required
        error={fieldErrorOf(error, 'projectId')}
      />
      <div className="field">
        <label htmlFor="mixpanel-residency">Data residency</label>
        <select id="mixpanel-residency" value={values.residency} onChange={set('residency')}>
          {MIXPANEL_RESIDENCIES.map((residency) => (
            <option key={residency} value={residency}>
              {{ US: 'United States (US)', EU: 'European Union (EU)', IN: 'India (IN)' }[residency]}
            </option>
          ))}
        </select>
      </div>
      <div className="actions">
        <Button type="submit" busy={isLoading}>
          Connect Mixpanel
        </Button>
      </div>
    </form>
  );
}

/** BigQuery with a service-account JSON key, for warehouses that do not use a person's Google login. */
export function BigQueryKeyForm({ orgId, onCreated }: FormProps) {
  const [name, setName] = useState('BigQuery');
  const [serviceAccountKey, setKey] = useState('');
  const [create, { isLoading, error }] = useCreateDestinationMutation();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const result = await create({ orgId, body: { platform: 'bigquery', name, serviceAccountKey } });
    if ('data' in result && result.data) onCreated(result.data.destination);
  }

  const keyError = fieldErrorOf(error, 'serviceAccountKey');
  return (
    <form className="stack card" onSubmit={submit} aria-labelledby="bigquery-key-title">
      <h3 id="bigquery-key-title">BigQuery with a service-account key</h3>
      {error && !keyError && <Alert>{messageOf(error, 'Could not connect BigQuery.')}</Alert>}
      <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} required />
      <div className="field">
        <label htmlFor="bigquery-key">JSON key file</label>
        <textarea
          id="bigquery-key"
          rows={5}
          value={serviceAccountKey}
          onChange={(event) => setKey(event.target.value)}
          required
          aria-invalid={Boolean(keyError)}
          aria-describedby={keyError ? 'bigquery-key-error' : undefined}
          placeholder='{"type": "service_account", …}'
        />
        <FieldError id="bigquery-key-error" error={keyError} />
      </div>
      <div className="actions">
        <Button type="submit" busy={isLoading}>
          Connect with key
        </Button>
      </div>
    </form>
  );
}
