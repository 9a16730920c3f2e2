import Link from 'next/link';
import { useRouter } from 'next/router';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import styles from '@/components/conversions/conversions.module.css';
import MappingFields, { identifiersInWords, mappingOf, NEW_MAPPING, type MappingDraft } from '@/components/conversions/MappingFields';
import {
  conversionPath,
  conversionsPath,
  destinationPath,
  eventsInWords,
  FailureAlert,
  fieldErrorsOf,
  firstError,
  valueInWords,
} from '@/components/conversions/shared';
import { createErrors, useSchemas } from '@/components/conversions/validation';
import { messageOf, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import SelectField from '@/components/ui/SelectField';
import Spinner from '@/components/ui/Spinner';
import TextField from '@/components/ui/TextField';
import type { CreateConversionInput } from '@/lib/shared/conversions/conversion';
import { isAdPlatform, PLATFORM_LABELS, TARGET_LABEL, type AdPlatform, type Integration } from '@/lib/shared/integrations/platforms';
import { can } from '@/lib/shared/permissions';
import { useCreateConversionMutation } from '@/store/conversionsApi';
import { useAppsQuery, useIntegrationsQuery, usePaymentsQuery, useTargetsQuery } from '@/store/integrationsApi';

const STEPS = ['Source', 'Destination', 'Mapping', 'Review'] as const;
type Step = 0 | 1 | 2 | 3;

interface Draft {
  /** 'app:{id}' or 'payments:{id}'. */
  source: string;
  destinationId: string;
  accountId: string;
  targetId: string;
  mapping: MappingDraft;
  /** null: the suggested name (source → target) until the user types one. */
  name: string | null;
}

const EMPTY: Draft = { source: '', destinationId: '', accountId: '', targetId: '', mapping: NEW_MAPPING, name: null };

const isAdDestination = (integration: Integration): integration is Integration & { platform: AdPlatform } => isAdPlatform(integration.platform);

/** The error key of each part of the draft ('mapping' covers all of the mapping's). */
const FIELD_OF: Record<keyof Draft, string> = {
  source: 'source',
  destinationId: 'destination.destinationId',
  accountId: 'destination.accountId',
  targetId: 'destination.targetId',
  mapping: 'mapping',
  name: 'name',
};

/** Which step holds a field ('destination.targetId' → Destination); what is not one of the first three is on Review. */
function stepOf(field: string): Step {
  if (field.startsWith('source')) return 0;
  if (field.startsWith('destination')) return 1;
  if (field.startsWith('mapping')) return 2;
  return 3;
}

function sourceOf(key: string): CreateConversionInput['source'] {
  const [type, id = ''] = key.split(/:(.*)/s);
  return type === 'payments' ? { type: 'payments', paymentId: id } : { type: 'app', appId: id };
}

/** A radio choice with a name and a line about it. */
function Choice({ name, value, checked, onChange, title, detail }: { name: string; value: string; checked: boolean; onChange: (value: string) => void; title: string; detail: ReactNode }) {
  return (
    <li>
      <label className={styles.choice}>
        <input type="radio" name={name} value={value} checked={checked} onChange={() => onChange(value)} />
        <span className={styles.choiceText}>
          <strong>{title}</strong>
          <span className="muted">{detail}</span>
        </span>
      </label>
    </li>
  );
}

function SourceStep({ orgId, draft, onPick, error }: { orgId: string; draft: Draft; onPick: (source: string) => void; error?: string }) {
  const apps = useAppsQuery(orgId);
  const payments = usePaymentsQuery(orgId);
  const org = `/${encodeURIComponent(orgId)}`;
  if (apps.isLoading || payments.isLoading) return <Spinner label="Loading your apps and payment accounts" />;
  if (apps.error || payments.error) return <Alert>{messageOf(apps.error ?? payments.error, 'Could not load your apps and payment accounts.')}</Alert>;
  const appList = apps.data ?? [];
  const paymentList = payments.data ?? [];
  if (appList.length === 0 && paymentList.length === 0) {
    return (
      <div className="empty-state stack" data-testid="empty-state" style={{ alignItems: 'center' }}>
        <p>No apps or payment accounts yet. Conversions come from your website&apos;s form submissions or from your Stripe payments.</p>
        <div className="actions" style={{ justifyContent: 'center' }}>
          <Link className="button" href={`${org}/app/connect`}>
            Add an app
          </Link>
          <Link className="button button--secondary" href={`${org}/payment`}>
            Connect Stripe
          </Link>
        </div>
      </div>
    );
  }
  return (
    <fieldset className={styles.fieldset} aria-describedby={error ? 'source-error' : undefined}>
      <legend className={styles.legend}>Where do the events come from?</legend>
      {appList.length > 0 && (
        <>
          <h3 className={styles.groupTitle}>Apps</h3>
          <ul className={styles.choices}>
            {appList.map((app) => (
              <Choice key={app.id} name="source" value={`app:${app.id}`} checked={draft.source === `app:${app.id}`} onChange={onPick} title={app.name} detail={`Form submissions on ${app.websiteUrl}`} />
            ))}
          </ul>
        </>
      )}
      {paymentList.length > 0 && (
        <>
          <h3 className={styles.groupTitle}>Payment accounts</h3>
          <ul className={styles.choices}>
            {paymentList.map((payment) => (
              <Choice
                key={payment.id}
                name="source"
                value={`payments:${payment.id}`}
                checked={draft.source === `payments:${payment.id}`}
                onChange={onPick}
                title={payment.name}
                detail={`Successful Stripe payments (${payment.livemode ? 'live' : 'test'} mode)`}
              />
            ))}
          </ul>
        </>
      )}
      {error && (
        <span id="source-error" className="field__error">
          {error}
        </span>
      )}
      <p className="muted">
        Another source? <Link href={`${org}/app/connect`}>Add an app</Link> or <Link href={`${org}/payment`}>connect Stripe</Link>.
      </p>
    </fieldset>
  );
}

function DestinationStep({ orgId, draft, update, errors }: { orgId: string; draft: Draft; update: (changes: Partial<Draft>) => void; errors: Record<string, string[]> }) {
  const destinations = useIntegrationsQuery({ orgId, kind: 'destination' });
  const candidates = (destinations.data ?? []).filter(isAdDestination);
  const destination = candidates.find((candidate) => candidate.id === draft.destinationId);
  const targets = useTargetsQuery({ orgId, id: draft.destinationId, accountId: draft.accountId }, { skip: !destination || !draft.accountId });
  if (destinations.isLoading) return <Spinner label="Loading your destinations" />;
  if (destinations.error) return <Alert>{messageOf(destinations.error, 'Could not load your destinations.')}</Alert>;
  if (candidates.length === 0) {
    return (
      <div className="empty-state stack" data-testid="empty-state" style={{ alignItems: 'center' }}>
        <p>No ad platform to send to yet. Connect Google Ads, Meta or Microsoft Advertising as a destination and pick its ad account, then come back.</p>
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
                    candidate.name === `${PLATFORM_LABELS[candidate.platform]} · ${candidate.accountName}` ? PLATFORM_LABELS[candidate.platform] : `${PLATFORM_LABELS[candidate.platform]} · ${candidate.accountName}`,
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
        {destinationError && (
          <span id="destination-error" className="field__error">
            {destinationError}
          </span>
        )}
      </fieldset>
      {destination?.status === 'needs_reauth' && (
        <Alert>
          {PLATFORM_LABELS[destination.platform]} has disconnected this destination. <Link href={destinationPath(orgId, destination.id)}>Reconnect it</Link>, then come back.
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
            options={(targets.data ?? []).map((target) => ({ value: target.id, label: target.name === target.id ? target.id : `${target.name} · ${target.id}` }))}
            placeholder={`Choose a ${label.toLowerCase()}`}
            error={firstError(errors, 'destination.targetId')}
          />
        ))}
    </div>
  );
}

/** `/{orgId}/createConversion`: source → destination → mapping → review → Create. */
export function CreateConversionPage() {
  useSchemas();
  const router = useRouter();
  const { orgId, role } = useOrganizationContext();
  const [step, setStep] = useState<Step>(0);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [create, creating] = useCreateConversionMutation();
  const heading = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);
  const apps = useAppsQuery(orgId ?? '', { skip: !orgId });
  const payments = usePaymentsQuery(orgId ?? '', { skip: !orgId });
  const destinations = useIntegrationsQuery({ orgId: orgId ?? '', kind: 'destination' }, { skip: !orgId });
  const targets = useTargetsQuery({ orgId: orgId ?? '', id: draft.destinationId, accountId: draft.accountId }, { skip: !orgId || !draft.destinationId || !draft.accountId });

  // Keyboard and screen-reader users land on the new step's heading.
  useEffect(() => {
    if (moved.current) heading.current?.focus();
  }, [step]);

  if (!orgId || !role) return <Spinner label="Loading" />;

  const go = (next: Step) => {
    moved.current = true;
    setStep(next);
  };
  const update = (changes: Partial<Draft>) => {
    setDraft((current) => ({ ...current, ...changes }));
    // A field the user changed no longer shows the error it had (the next Continue checks again).
    const changed = Object.keys(changes).map((key) => FIELD_OF[key as keyof Draft]);
    setErrors((current) => Object.fromEntries(Object.entries(current).filter(([key]) => !changed.some((field) => key === field || key.startsWith(`${field}.`)))));
  };

  const source = sourceOf(draft.source);
  const sourceName =
    source.type === 'app' ? apps.data?.find((app) => app.id === source.appId)?.name : payments.data?.find((payment) => payment.id === source.paymentId)?.name;
  const destination = destinations.data?.filter(isAdDestination).find((candidate) => candidate.id === draft.destinationId);
  const account = destination?.accounts.find((candidate) => candidate.id === draft.accountId);
  const target = targets.data?.find((candidate) => candidate.id === draft.targetId);
  const suggestedName = sourceName && target ? `${sourceName} → ${target.name}`.slice(0, 100) : '';
  const name = draft.name ?? suggestedName;
  const body = { name, source, destination: { destinationId: draft.destinationId, accountId: draft.accountId, targetId: draft.targetId }, mapping: mappingOf(draft.mapping) };

  /** What the current step lacks: our own words for the choices, the handler's schema for the mapping and the name. */
  function problems(upTo: Step): Record<string, string[]> {
    const found: Record<string, string[]> = {};
    if (!draft.source) found.source = ['Choose where the events come from'];
    if (upTo >= 1) {
      if (!destination) found['destination.destinationId'] = ['Choose a destination'];
      else if (!draft.accountId) found['destination.accountId'] = ['Pick an account'];
      else if (!draft.targetId) found['destination.targetId'] = [`Pick a ${TARGET_LABEL[destination.platform].toLowerCase()}`];
    }
    if (upTo >= 2) {
      for (const [key, messages] of Object.entries(createErrors(body))) {
        if (stepOf(key) >= 2 && stepOf(key) <= upTo) found[key] = messages;
      }
    }
    return found;
  }

  /** Shows the errors on their fields, on the first step that has one. */
  function showErrors(found: Record<string, string[]>): boolean {
    setErrors(found);
    const keys = Object.keys(found);
    if (keys.length === 0) return false;
    const first = Math.min(...keys.map(stepOf)) as Step;
    if (first !== step) go(first);
    return true;
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (showErrors(problems(step))) return;
    if (step < 3) {
      if (step === 2) update({ mapping: { ...draft.mapping, events: body.mapping.events, pendingEvent: '' } });
      go((step + 1) as Step);
      return;
    }
    const result = await create({ orgId: orgId!, body });
    if ('data' in result && result.data) {
      void router.push(conversionPath(orgId!, result.data.conversion.id));
      return;
    }
    showErrors(fieldErrorsOf(result.error));
  }

  // An empty state has its own way forward (connect what is missing); Continue would lead nowhere.
  const noSources = apps.data?.length === 0 && payments.data?.length === 0;
  const noDestinations = destinations.data !== undefined && !destinations.data.some(isAdDestination);
  const blocked = (step === 0 && noSources) || (step === 1 && noDestinations);
  const serverFailure = creating.error && Object.keys(fieldErrorsOf(creating.error)).length === 0 ? creating.error : null;

  if (!can(role, 'conversion', 'create')) {
    return (
      <div className="stack">
        <Title>New conversion</Title>
        <h1>New conversion</h1>
        <p className="muted">Your role can see conversions but not create them. Ask an owner or admin.</p>
      </div>
    );
  }

  return (
    <div className="stack" style={{ gap: '1.5rem', maxWidth: 720 }}>
      <Title>New conversion</Title>
      <p>
        <Link href={conversionsPath(orgId)}>← Conversions</Link>
      </p>
      <div>
        <h1>New conversion</h1>
        <p className="muted">Send first-party conversions from your website or payments to an ad platform, server-side.</p>
      </div>
      <ol className={styles.steps} aria-label="Steps">
        {STEPS.map((label, index) => (
          <li key={label} className={`${styles.step} ${index < step ? styles.stepDone : ''}`} aria-current={index === step ? 'step' : undefined}>
            {index < step ? (
              <button type="button" className={styles.stepButton} onClick={() => go(index as Step)}>
                {label}
                <span className="sr-only"> (done, go back to it)</span>
              </button>
            ) : (
              label
            )}
          </li>
        ))}
      </ol>
      <form className="stack card" onSubmit={submit} noValidate aria-labelledby="step-title">
        <h2 id="step-title" ref={heading} tabIndex={-1} style={{ margin: 0, fontSize: '1.15rem' }}>
          {['Choose a source', 'Choose a destination', 'Map the events', 'Review and create'][step]}
        </h2>
        {step === 0 && <SourceStep orgId={orgId} draft={draft} onPick={(value) => update({ source: value })} error={firstError(errors, 'source')} />}
        {step === 1 && <DestinationStep orgId={orgId} draft={draft} update={update} errors={errors} />}
        {step === 2 && <MappingFields draft={draft.mapping} onChange={(mapping) => update({ mapping })} errors={errors} />}
        {step === 3 && destination && (
          <>
            <dl className={styles.review} aria-label="Summary">
              <dt>Source</dt>
              <dd>
                {source.type === 'app' ? 'Form submissions of the app' : 'Successful payments of'} “{sourceName ?? '…'}”
              </dd>
              <dt>Destination</dt>
              <dd>
                {destination.name} ({PLATFORM_LABELS[destination.platform]})
              </dd>
              <dt>Ad account</dt>
              <dd>{account ? `${account.name || account.id} · ${account.id}` : draft.accountId}</dd>
              <dt>{TARGET_LABEL[destination.platform]}</dt>
              <dd>{target ? `${target.name} · ${target.id}` : draft.targetId}</dd>
              <dt>Events</dt>
              <dd>{eventsInWords(body.mapping.events)}</dd>
              <dt>Value</dt>
              <dd>{valueInWords(body.mapping.value)}</dd>
              <dt>Identifiers</dt>
              <dd>{identifiersInWords(body.mapping.identifiers)}</dd>
            </dl>
            <TextField
              label="Name"
              value={name}
              onChange={(event) => update({ name: event.target.value })}
              maxLength={100}
              required
              error={firstError(errors, 'name')}
            />
            {serverFailure && <FailureAlert orgId={orgId} error={serverFailure} fallback="Could not create the conversion." />}
          </>
        )}
        <div className="actions" style={{ justifyContent: 'space-between' }}>
          {step > 0 ? (
            <Button type="button" variant="secondary" onClick={() => go((step - 1) as Step)}>
              Back
            </Button>
          ) : (
            <span />
          )}
          {!blocked && (
            <Button type="submit" busy={creating.isLoading}>
              {step === 3 ? 'Create conversion' : 'Continue'}
            </Button>
          )}
        </div>
      </form>
    </div>
  );
}
