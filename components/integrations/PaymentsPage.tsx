import { useRouter } from 'next/router';
import { useState, type FormEvent } from 'react';
import { fieldErrorOf, formatDate, LoadFailed, messageOf, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import SourceDefaultsFields from '@/components/conversions/SourceDefaultsFields';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import DeleteButton from '@/components/ui/DeleteButton';
import Notice, { type NoticeValue } from '@/components/ui/Notice';
import Spinner from '@/components/ui/Spinner';
import TableHead from '@/components/ui/TableHead';
import TextField from '@/components/ui/TextField';
import { ConfigureButton, NameCell } from '@/components/ui/ListRow';
import type { Payment } from '@/lib/shared/integrations/apps';
import { can } from '@/lib/shared/permissions';
import {
  useCreatePaymentMutation,
  useDeletePaymentMutation,
  usePaymentQuery,
  usePaymentsQuery,
  useRenamePaymentMutation,
  useUpdatePaymentMutation,
} from '@/store/integrationsApi';

const paymentPath = (orgId: string, id: string) => `/${encodeURIComponent(orgId)}/payment/${encodeURIComponent(id)}/configuration`;

function ConnectStripe({ orgId }: { orgId: string }) {
  const router = useRouter();
  const [name, setName] = useState('Stripe');
  const [apiKey, setApiKey] = useState('');
  const [create, { isLoading, error }] = useCreatePaymentMutation();
  async function submit(event: FormEvent) {
    event.preventDefault();
    const result = await create({ orgId, name, apiKey });
    if ('data' in result && result.data) void router.push(`${paymentPath(orgId, result.data.payment.id)}?connected=1`);
  }
  const keyError = fieldErrorOf(error, 'apiKey');
  return (
    <form className="stack card" onSubmit={submit} aria-labelledby="stripe-title">
      <h2 id="stripe-title">Connect a Stripe account</h2>
      <p className="muted">
        In Stripe, create a restricted key (Developers → API keys → Create restricted key) with <strong>Charges: Read</strong>. SignalBridge
        checks it before saving and never shows it again.
      </p>
      {error && !keyError && <Alert>{messageOf(error, 'Could not connect Stripe.')}</Alert>}
      <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} required maxLength={100} />
      <TextField
        label="Restricted key"
        value={apiKey}
        onChange={(event) => setApiKey(event.target.value)}
        required
        autoComplete="off"
        placeholder="rk_live_…"
        error={keyError}
      />
      <div className="actions">
        <Button type="submit" busy={isLoading}>
          Connect Stripe
        </Button>
      </div>
    </form>
  );
}

/** A payment account's delete button, on its row and on its page. */
function PaymentDeleteButton({
  orgId,
  payment,
  small,
  onDeleted,
}: {
  orgId: string;
  payment: Payment;
  small?: boolean;
  onDeleted: () => void;
}) {
  const [remove] = useDeletePaymentMutation();
  return (
    <DeleteButton
      name={payment.name}
      confirmLabel="Delete payment account"
      small={small}
      explanation={() => <p>Its key is removed from SignalBridge. Revoke it in Stripe too if you no longer need it.</p>}
      onDelete={async () => {
        const result = await remove({ orgId, id: payment.id });
        return 'error' in result ? messageOf(result.error, 'Could not delete it.') : null;
      }}
      onDeleted={onDeleted}
    />
  );
}

/** `/{orgId}/payment`: Stripe accounts whose payments become conversions. */
export function PaymentsPage() {
  const { orgId, role } = useOrganizationContext();
  const { data = [], isLoading, error } = usePaymentsQuery(orgId ?? '', { skip: !orgId });
  return (
    <div className="stack" style={{ gap: '2rem' }}>
      <Title>Payments</Title>
      <div>
        <h1>Payments</h1>
        <p className="muted">Stripe accounts whose payments are sent to your ad platforms as conversions.</p>
      </div>
      {!orgId || !role || isLoading ? (
        <Spinner label="Loading payment accounts" />
      ) : error ? (
        <Alert>{messageOf(error, 'Could not load your payment accounts.')}</Alert>
      ) : data.length === 0 ? (
        <p className="empty-state" data-testid="empty-state">
          No payment accounts yet.
        </p>
      ) : (
        <table className="table table--cards" aria-label="Payment accounts">
          <TableHead columns={['Name', 'Key', 'Mode', 'Connected']} />
          <tbody>
            {data.map((payment) => (
              <tr key={payment.id}>
                <NameCell href={paymentPath(orgId, payment.id)}>{payment.name}</NameCell>
                <td data-label="Key">
                  <code>{payment.keyPrefix}</code>
                </td>
                <td data-label="Mode">{payment.livemode ? 'Live' : 'Test'}</td>
                <td data-label="Connected">{formatDate(payment.connectedAt)}</td>
                <td className="actions">
                  <ConfigureButton href={paymentPath(orgId, payment.id)} />
                  {can(role, 'payment', 'delete') && (
                    <PaymentDeleteButton orgId={orgId} payment={payment} small onDeleted={() => undefined} />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {orgId && role && can(role, 'payment', 'create') && <ConnectStripe orgId={orgId} />}
    </div>
  );
}

function PaymentSettings({ orgId, payment, mayDelete }: { orgId: string; payment: Payment; mayDelete: boolean }) {
  const router = useRouter();
  const [name, setName] = useState(payment.name);
  const [notice, setNotice] = useState<NoticeValue | null>(null);
  const [rename, renaming] = useRenamePaymentMutation();
  const [country, setCountry] = useState(payment.defaultCountry ?? '');
  const [update, updating] = useUpdatePaymentMutation();
  async function submit(event: FormEvent) {
    event.preventDefault();
    const result = await rename({ orgId, id: payment.id, name });
    setNotice('error' in result ? { ok: false, text: messageOf(result.error, 'Could not rename it.') } : { ok: true, text: 'Name saved.' });
  }
  async function saveCountry(event: FormEvent) {
    event.preventDefault();
    const result = await update({ orgId, id: payment.id, defaultCountry: country.trim() === '' ? null : country.trim() });
    setNotice(
      'error' in result
        ? { ok: false, text: fieldErrorOf(result.error, 'defaultCountry') ?? messageOf(result.error, 'Could not save the country.') }
        : { ok: true, text: country.trim() ? 'Default country saved.' : 'Default country removed.' },
    );
  }
  return (
    <div className="stack" style={{ gap: '2rem' }}>
      <Title>{payment.name}</Title>
      <div>
        <h1>{payment.name}</h1>
        <p className="muted">
          Stripe · <code>{payment.keyPrefix}</code> · {payment.livemode ? 'live mode' : 'test mode'} · connected{' '}
          {formatDate(payment.connectedAt)}
        </p>
      </div>
      {router.query.connected === '1' && (
        <div role="status" className="alert alert--success">
          Stripe connected. The key can read charges.
        </div>
      )}
      <Notice notice={notice} />
      <form className="inline-form" onSubmit={submit} aria-label="Rename">
        <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} required maxLength={100} />
        <Button type="submit" variant="secondary" busy={renaming.isLoading}>
          Save name
        </Button>
      </form>
      <form className="stack" onSubmit={saveCountry} aria-label="Default country">
        <SourceDefaultsFields id="payment-defaults" country={country} onCountry={setCountry} />
        <div className="actions" style={{ justifyContent: 'flex-start' }}>
          <Button type="submit" variant="secondary" busy={updating.isLoading}>
            Save default country
          </Button>
        </div>
      </form>
      {mayDelete && (
        <div>
          <PaymentDeleteButton
            orgId={orgId}
            payment={payment}
            onDeleted={() => void router.push(`/${encodeURIComponent(orgId)}/payment`)}
          />
        </div>
      )}
    </div>
  );
}

/** `/{orgId}/payment/{id}/configuration`. */
export function PaymentConfigurationPage() {
  const { query } = useRouter();
  const { orgId, role } = useOrganizationContext();
  const id = typeof query.id === 'string' ? query.id : '';
  const { data, isLoading, error } = usePaymentQuery({ orgId: orgId ?? '', id }, { skip: !orgId || !id });
  if (!orgId || !role || isLoading) return <Spinner label="Loading" />;
  if (error || !data) return <LoadFailed title="Payment account" error={error} fallback="Payment account not found." />;
  return <PaymentSettings key={data.id} orgId={orgId} payment={data} mayDelete={can(role, 'payment', 'delete')} />;
}
