import dynamic from 'next/dynamic';
import Link from 'next/link';
import { useRouter } from 'next/router';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import SourceStep from '@/components/conversions/SourceStep';
import {
  changedWarehouseFields,
  EMPTY,
  FIELD_OF,
  isWarehouse,
  isWarehouseKey,
  sourceOf,
  stepOf,
  STEPS,
  withoutErrorsOf,
  type Draft,
  type Step,
} from '@/components/conversions/createConversionDraft';
import styles from '@/components/conversions/conversions.module.css';
import { mappingOf } from '@/components/conversions/mapping';
import { conversionPath, conversionsPath, isAdDestination } from '@/components/conversions/paths';
import type { WarehouseDraft } from '@/components/conversions/warehouseDraft';
import { createErrors, useSchemas } from '@/components/conversions/validation';
import { CannotCreatePage, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import Spinner from '@/components/ui/Spinner';
import { TARGET_LABEL } from '@/lib/shared/integrations/platforms';
import { can } from '@/lib/shared/permissions';
import { useAppDispatch } from '@/store/hooks';
import { useAppsQuery, useIntegrationsQuery, usePaymentsQuery, useTargetsQuery } from '@/store/integrationsApi';

// The first step is in the page's first load (SourceStep); the later steps load beside it.
const loading = () => <Spinner label="Loading the fields" />;
const DestinationStep = dynamic(() => import('@/components/conversions/DestinationStep'), { loading });
const MappingFields = dynamic(() => import('@/components/conversions/MappingFields'), { loading });
const ReviewStep = dynamic(() => import('@/components/conversions/ReviewStep'), { loading });

/** The plans table, loaded after first paint: until then the page does not say the plan lacks conversions (the server refuses anyway). */
function usePlans() {
  const [plans, setPlans] = useState<typeof import('@/lib/shared/billing/entitlements') | null>(null);
  useEffect(() => {
    void import('@/lib/shared/billing/entitlements').then(setPlans, () => undefined);
  }, []);
  return plans;
}

/** `/{orgId}/createConversion`: source → destination → mapping → review → Create. */
export function CreateConversionPage() {
  useSchemas();
  const router = useRouter();
  const { orgId, role, document, plan } = useOrganizationContext();
  const plans = usePlans();
  const [step, setStep] = useState<Step>(0);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  // The create call loads with the conversions API at the last step's submit, not in the first load.
  const [creating, setCreating] = useState<{ isLoading: boolean; error: unknown }>({ isLoading: false, error: undefined });
  const dispatch = useAppDispatch();
  const heading = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);
  const apps = useAppsQuery(orgId ?? '', { skip: !orgId });
  const payments = usePaymentsQuery(orgId ?? '', { skip: !orgId });
  const destinations = useIntegrationsQuery({ orgId: orgId ?? '', kind: 'destination' }, { skip: !orgId });
  const targets = useTargetsQuery(
    { orgId: orgId ?? '', id: draft.destinationId, accountId: draft.accountId },
    { skip: !orgId || !draft.destinationId || !draft.accountId },
  );

  // The later steps start loading once the page is shown, so Continue does not wait for them.
  useEffect(() => {
    void import('@/components/conversions/DestinationStep');
    void import('@/components/conversions/MappingFields');
    void import('@/components/conversions/ReviewSummary');
  }, []);

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
    setErrors((current) => withoutErrorsOf(current, changed));
  };

  /** A warehouse source's fields changed: only the errors of the fields that changed go. */
  const updateWarehouse = (warehouse: WarehouseDraft) => {
    const changed = changedWarehouseFields(draft.warehouse, warehouse);
    setDraft((current) => ({ ...current, warehouse }));
    setErrors((current) => withoutErrorsOf(current, changed));
  };

  const source = sourceOf(draft);
  const sourceName =
    source.type === 'app'
      ? apps.data?.find((app) => app.id === source.appId)?.name
      : source.type === 'payments'
        ? payments.data?.find((payment) => payment.id === source.paymentId)?.name
        : source.type === 'bigquery'
          ? source.mode === 'table'
            ? source.table.split('.').at(-1) || undefined
            : 'BigQuery query'
          : source.events.join(', ') || undefined;
  const destination = destinations.data?.filter(isAdDestination).find((candidate) => candidate.id === draft.destinationId);
  const account = destination?.accounts.find((candidate) => candidate.id === draft.accountId);
  const target = targets.data?.find((candidate) => candidate.id === draft.targetId);
  const suggestedName = sourceName && target ? `${sourceName} → ${target.name}`.slice(0, 100) : '';
  const name = draft.name ?? suggestedName;
  const body = {
    name,
    source,
    destination: { destinationId: draft.destinationId, accountId: draft.accountId, targetId: draft.targetId },
    mapping: mappingOf(draft.mapping),
  };

  /** What the current step lacks: our own words for the choices, the handler's schema for the mapping and the name. */
  function problems(upTo: Step): Record<string, string[]> {
    const found: Record<string, string[]> = {};
    if (!draft.source) found.source = ['Choose where the events come from'];
    else if (isWarehouseKey(draft.source) && !draft.warehouse) found.source = ['The fields of this source are still loading'];
    // What a warehouse source reads is checked with the handler's schema too (the server also checks its columns).
    if (draft.warehouse) {
      for (const [key, messages] of Object.entries(createErrors(body))) if (stepOf(key) === 0) found[key] = messages;
    }
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
    setCreating({ isLoading: true, error: undefined });
    const { conversionsApi } = await import('@/store/conversionsApi');
    const result = await dispatch(conversionsApi.endpoints.createConversion.initiate({ orgId: orgId!, body }));
    setCreating({ isLoading: false, error: 'error' in result ? result.error : undefined });
    if ('data' in result && result.data) {
      void router.push(conversionPath(orgId!, result.data.conversion.id));
      return;
    }
    const { fieldErrorsOf } = await import('@/components/ui/failures');
    showErrors(fieldErrorsOf(result.error));
  }

  // An empty state has its own way forward (connect what is missing); Continue would lead nowhere.
  const noSources =
    apps.data?.length === 0 && payments.data?.length === 0 && destinations.data !== undefined && !destinations.data.some(isWarehouse);
  const noDestinations = destinations.data !== undefined && !destinations.data.some(isAdDestination);
  // Known up front: a plan without conversions is said on the first step, not refused at the last.
  const planLacksConversions = document !== null && document !== undefined && plans !== null && !plans.entitlementsOf(plan).conversions;
  const blocked = planLacksConversions || (step === 0 && noSources) || (step === 1 && noDestinations);

  if (!can(role, 'conversion', 'create')) {
    return <CannotCreatePage title="New conversion" things="conversions" />;
  }

  return (
    <div className="stack" style={{ gap: '1.5rem', maxWidth: 720 }}>
      <Title>New conversion</Title>
      <p>
        <Link href={conversionsPath(orgId)}>← Conversions</Link>
      </p>
      <div>
        <h1>New conversion</h1>
        <p className="muted">
          Send first-party conversions from your website, your payments or your warehouse to an ad platform, from our servers rather than
          the visitor’s browser.
        </p>
      </div>
      <ol className={styles.steps} aria-label="Steps">
        {STEPS.map((label, index) => (
          <li
            key={label}
            className={`${styles.step} ${index < step ? styles.stepDone : ''}`}
            aria-current={index === step ? 'step' : undefined}
          >
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
      {planLacksConversions && (
        <Alert>
          Conversions are included in the{' '}
          {plans.PLAN_ENTITLEMENTS.filter((candidate) => candidate.conversions)
            .map((candidate) => candidate.name)
            .join(' and ')}{' '}
          plans. Upgrade to send conversions to the ad platforms.{' '}
          <Link href={`/${encodeURIComponent(orgId)}/subscription`}>See the plans</Link>
        </Alert>
      )}
      <form className="stack card" onSubmit={submit} noValidate aria-labelledby="step-title">
        <h2 id="step-title" ref={heading} tabIndex={-1} style={{ margin: 0, fontSize: '1.15rem' }}>
          {['Choose a source', 'Choose a destination', 'Map the events', 'Review and create'][step]}
        </h2>
        {step === 0 && (
          <SourceStep
            orgId={orgId}
            plan={plan}
            draft={draft}
            // A warehouse source's rows are chosen by what it reads: the mapping's name filter does not apply.
            onPick={(value) =>
              update({
                source: value,
                warehouse: null,
                ...(isWarehouseKey(value) ? { mapping: { ...draft.mapping, events: [], pendingEvent: '' } } : {}),
              })
            }
            // Unless the user picked another source meanwhile.
            onWarehouseReady={(value, warehouse) => setDraft((current) => (current.source === value ? { ...current, warehouse } : current))}
            onWarehouse={updateWarehouse}
            errors={errors}
            onErrors={setErrors}
          />
        )}
        {step === 1 && <DestinationStep orgId={orgId} draft={draft} update={update} errors={errors} source={draft.source} />}
        {step === 2 && (
          <MappingFields draft={draft.mapping} onChange={(mapping) => update({ mapping })} errors={errors} eventNames={!draft.warehouse} />
        )}
        {step === 3 && destination && (
          <>
            <ReviewStep
              summary={{
                source,
                sourceName,
                apps: apps.data,
                payments: payments.data,
                destination,
                account: account ?? null,
                target: target ?? null,
                choice: draft,
                mapping: body.mapping,
              }}
              orgId={orgId}
              name={name}
              onName={(value) => update({ name: value })}
              errors={errors}
              error={creating.error}
            />
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
