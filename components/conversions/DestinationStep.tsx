import Link from 'next/link';
import Choice from '@/components/conversions/Choice';
import styles from '@/components/conversions/conversions.module.css';
import { destinationPath, isAdDestination } from '@/components/conversions/shared';
import { firstError } from '@/components/ui/failures';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import SelectField from '@/components/ui/SelectField';
import Spinner from '@/components/ui/Spinner';
import { PLATFORM_LABELS, TARGET_LABEL } from '@/lib/shared/integrations/platforms';
import { useIntegrationsQuery, useTargetsQuery } from '@/store/integrationsApi';
import { useConversionsQuery } from '@/store/conversionsApi';
import type { ConversionSource } from '@/lib/shared/conversions/conversion';
import FieldError from '@/components/ui/FieldError';
import ReuseLoginOffers from '@/components/integrations/ReuseLoginOffers';
import type { Integration } from '@/lib/shared/integrations/platforms';

/** A conversion's source as the wizard names it: 'app:{id}', 'payments:{id}'; null for a warehouse read. */
const keyOf = (source: ConversionSource) =>
  source.type === 'app' ? `app:${source.appId}` : source.type === 'payments' ? `payments:${source.paymentId}` : null;

/** Where a new conversion's events go: the destination, its ad account and target. */
export interface DestinationChoice {
  destinationId: string;
  accountId: string;
  targetId: string;
}

/** The create flow's second step: an ad platform destination, then its account and target (loaded from the platform). */
export default function DestinationStep({
  orgId,
  draft,
  update,
  errors,
  source,
}: {
  orgId: string;
  draft: DestinationChoice;
  update: (changes: Partial<DestinationChoice>) => void;
  errors: Record<string, string[]>;
  /** The source chosen ('app:{id}', 'payments:{id}' …): a conversion of it already at the target is said here. */
  source?: string;
}) {
  const destinations = useIntegrationsQuery({ orgId, kind: 'destination' });
  const conversions = useConversionsQuery(orgId, { skip: !source });
  // One conversion per source and target for any one event: said when the target is picked, not at Create.
  const twin = (conversions.data ?? []).find(
    (conversion) =>
      keyOf(conversion.source) === source &&
      conversion.destination.destinationId === draft.destinationId &&
      conversion.destination.accountId === draft.accountId &&
      conversion.destination.targetId === draft.targetId,
  );
  const candidates = (destinations.data ?? []).filter(isAdDestination);
  const destination = candidates.find((candidate) => candidate.id === draft.destinationId);
  const targets = useTargetsQuery(
    { orgId, id: draft.destinationId, accountId: draft.accountId },
    { skip: !destination || !draft.accountId },
  );
  // A login already connected as a source becomes the destination here, without leaving the wizard.
  const created = (picked: Integration) =>
    update({ destinationId: picked.id, accountId: picked.accounts.length === 1 ? picked.accounts[0]!.id : '', targetId: '' });
  const offers = <ReuseLoginOffers orgId={orgId} onCreated={created} title="Send with a login you already connected" />;
  if (destinations.isLoading) return <Spinner label="Loading your destinations" />;
  if (destinations.error) return <Alert>{messageOf(destinations.error, 'Could not load your destinations.')}</Alert>;
  if (candidates.length === 0) {
    return (
      <div className="empty-state stack" data-testid="empty-state" style={{ alignItems: 'center' }}>
        {offers}
        <p>
          No ad platform to send to yet. Connect Google Ads, Meta or Microsoft Advertising as a destination and pick its ad account, then
          come back.
        </p>
        <Link className="button" href={`/${encodeURIComponent(orgId)}/destination`}>
          Go to destinations
        </Link>
      </div>
    );
  }
  const destinationError = firstError(errors, 'destination.destinationId');
  const label = destination ? TARGET_LABEL[destination.platform] : 'Target';
  return (
    <div className="stack">
      <fieldset className={styles.fieldset} aria-describedby={destinationError ? 'destination-error' : undefined}>
        <legend className={styles.legend}>Which ad platform receives them?</legend>
        <ul className={styles.choices}>
          {candidates.map((candidate) => (
            <Choice
              key={candidate.id}
              name="destination"
              value={candidate.id}
              checked={draft.destinationId === candidate.id}
              onChange={(id) => {
                const picked = candidates.find((other) => other.id === id);
                // A destination with one ad account needs no second choice.
                update({ destinationId: id, accountId: picked?.accounts.length === 1 ? picked.accounts[0]!.id : '', targetId: '' });
              }}
              title={candidate.name}
              detail={
                <>
                  {[
                    // The default name already says platform and login.
                    candidate.name === `${PLATFORM_LABELS[candidate.platform]} · ${candidate.accountName}`
                      ? PLATFORM_LABELS[candidate.platform]
                      : `${PLATFORM_LABELS[candidate.platform]} · ${candidate.accountName}`,
                    candidate.accounts.length === 1 ? '1 ad account picked' : `${candidate.accounts.length} ad accounts picked`,
                  ].join(' · ')}
                  {candidate.status === 'needs_reauth' && (
                    <>
                      {' '}
                      <span className="badge badge--pending">Needs reconnecting</span>
                    </>
                  )}
                </>
              }
            />
          ))}
        </ul>
        <FieldError id="destination-error" error={destinationError} />
      </fieldset>
      {offers}
      {destination?.status === 'needs_reauth' && (
        <Alert>
          {PLATFORM_LABELS[destination.platform]} has disconnected this destination.{' '}
          <Link href={destinationPath(orgId, destination.id)}>Reconnect it</Link>, then come back.
        </Alert>
      )}
      {destination && destination.accounts.length === 0 && (
        <Alert>
          Pick the ad accounts of this destination first. <Link href={destinationPath(orgId, destination.id)}>Open the destination</Link>
        </Alert>
      )}
      {destination && destination.accounts.length > 0 && (
        <SelectField
          id="conversion-account"
          label="Ad account"
          value={draft.accountId}
          onChange={(accountId) => update({ accountId, targetId: '' })}
          options={destination.accounts.map((account) => ({ value: account.id, label: `${account.name || account.id} · ${account.id}` }))}
          placeholder="Choose an account"
          error={firstError(errors, 'destination.accountId')}
        />
      )}
      {destination &&
        draft.accountId &&
        (targets.isFetching && !targets.data ? (
          <Spinner label={`Loading ${label.toLowerCase()}s from ${PLATFORM_LABELS[destination.platform]}`} />
        ) : targets.error ? (
          <Alert>
            {messageOf(targets.error, `Could not load the ${label.toLowerCase()}s.`)}{' '}
            <button type="button" className="link-button" style={{ color: 'inherit' }} onClick={() => void targets.refetch()}>
              Try again
            </button>
          </Alert>
        ) : targets.data && targets.data.length === 0 ? (
          <p className="muted">
            This account has no {label.toLowerCase()} yet. Create one in {PLATFORM_LABELS[destination.platform]}, then{' '}
            <button type="button" className="link-button" style={{ color: 'var(--accent)' }} onClick={() => void targets.refetch()}>
              load them again
            </button>
            .
          </p>
        ) : (
          <SelectField
            id="conversion-target"
            label={label}
            value={draft.targetId}
            onChange={(targetId) => update({ targetId })}
            options={(targets.data ?? []).map((target) => ({
              value: target.id,
              label: target.name === target.id ? target.id : `${target.name} · ${target.id}`,
            }))}
            placeholder={`Choose a ${label.toLowerCase()}`}
            error={firstError(errors, 'destination.targetId')}
          />
        ))}
      {twin && !firstError(errors, 'destination.targetId') && (
        <p role="status" className="alert alert--info" data-testid="target-in-use">
          “{twin.name}” already sends this source’s {twin.mapping.events.length > 0 ? twin.mapping.events.join(', ') : 'events'} to this{' '}
          {label.toLowerCase()}. A second conversion may only take other event names (each event would otherwise be sent and counted twice).
        </p>
      )}
    </div>
  );
}
