import dynamic from 'next/dynamic';
import Link from 'next/link';
import { useRouter } from 'next/router';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import Choice from '@/components/conversions/Choice';
import styles from '@/components/conversions/conversions.module.css';
import { mappingOf, NEW_MAPPING, type MappingDraft } from '@/components/conversions/mapping';
import { conversionPath, conversionsPath, isAdDestination } from '@/components/conversions/paths';
import type { WarehouseDraft } from '@/components/conversions/warehouseDraft';
import { createErrors, useSchemas } from '@/components/conversions/validation';
import { CannotCreatePage, messageOf, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import Spinner from '@/components/ui/Spinner';
import type { CreateConversionInput } from '@/lib/shared/schemas/conversions';
import { isWarehousePlatform, TARGET_LABEL, type Integration } from '@/lib/shared/integrations/platforms';
import { can } from '@/lib/shared/permissions';
import { useAppDispatch } from '@/store/hooks';
import { useAppsQuery, useIntegrationsQuery, usePaymentsQuery, useTargetsQuery } from '@/store/integrationsApi';
import FieldError from '@/components/ui/FieldError';

// The first step is in the page; what a BigQuery or Mixpanel source reads and the later steps load beside it.
const loading = () => <Spinner label="Loading the fields" />;
const WarehouseSourceFields = dynamic(() => import('@/components/conversions/WarehouseSourceFields'), { loading });
const DestinationStep = dynamic(() => import('@/components/conversions/DestinationStep'), { loading });
const MappingFields = dynamic(() => import('@/components/conversions/MappingFields'), { loading });
const ReviewStep = dynamic(() => import('@/components/conversions/ReviewStep'), { loading });

/** The warehouse draft's helpers: loaded with a warehouse source's defaults, before any draft has a warehouse part. */
type WarehouseHelpers = Pick<typeof import('@/components/conversions/warehouseDraft'), 'changedFields' | 'warehouseSourceOf'>;
let warehouseHelpers: WarehouseHelpers | null = null;

/** The plans table, loaded after first paint: until then the page does not say the plan lacks conversions (the server refuses anyway). */
function usePlans() {
  const [plans, setPlans] = useState<typeof import('@/lib/shared/billing/entitlements') | null>(null);
  useEffect(() => {
    void import('@/lib/shared/billing/entitlements').then(setPlans, () => undefined);
  }, []);
  return plans;
}

const STEPS = ['Source', 'Destination', 'Mapping', 'Review'] as const;
type Step = 0 | 1 | 2 | 3;

interface Draft {
  /** 'app:{id}', 'payments:{id}', or the destination a warehouse read uses: 'bigquery:{id}', 'mixpanel:{id}'. */
  source: string;
  /** What a BigQuery or Mixpanel source reads (null for an app or a payment account). */
  warehouse: WarehouseDraft | null;
  destinationId: string;
  accountId: string;
  targetId: string;
  mapping: MappingDraft;
  /** null: the suggested name (source → target) until the user types one. */
  name: string | null;
}

const EMPTY: Draft = { source: '', warehouse: null, destinationId: '', accountId: '', targetId: '', mapping: NEW_MAPPING, name: null };

/** Destinations of a warehouse platform (the catalogue's `conversionSource`) are also read from, with the same login. */
const isWarehouse = (integration: Integration) => isWarehousePlatform(integration.platform);
const isWarehouseKey = (source: string) => isWarehousePlatform(source.split(':')[0] ?? '');

/** The error key of each part of the draft ('mapping' covers all of the mapping's). */
const FIELD_OF: Record<keyof Draft, string> = {
  source: 'source',
  warehouse: 'source',
  destinationId: 'destination.destinationId',
  accountId: 'destination.accountId',
  targetId: 'destination.targetId',
  mapping: 'mapping',
  name: 'name',
};

/** The errors left once these fields (and what is under them) changed. */
const withoutErrorsOf = (errors: Record<string, string[]>, fields: string[]) =>
  Object.fromEntries(Object.entries(errors).filter(([key]) => !fields.some((field) => key === field || key.startsWith(`${field}.`))));

/** Which step holds a field ('destination.targetId' → Destination); what is not one of the first three is on Review. */
function stepOf(field: string): Step {
  if (field.startsWith('source')) return 0;
  if (field.startsWith('destination')) return 1;
  if (field.startsWith('mapping')) return 2;
  return 3;
}

function sourceOf(draft: Draft): CreateConversionInput['source'] {
  if (draft.warehouse) return warehouseHelpers!.warehouseSourceOf(draft.warehouse);
  const [type, id = ''] = draft.source.split(/:(.*)/s);
  return type === 'payments' ? { type: 'payments', paymentId: id } : { type: 'app', appId: id };
}

interface SourceStepProps {
  orgId: string;
  plan: unknown;
  draft: Draft;
  onPick: (source: string) => void;
  /** A warehouse source's new draft, once its fields have loaded. */
  onWarehouseReady: (source: string, warehouse: WarehouseDraft) => void;
  onWarehouse: (warehouse: WarehouseDraft) => void;
  errors: Record<string, string[]>;
  onErrors: (errors: Record<string, string[]>) => void;
}

function SourceStep({ orgId, plan, draft, onPick, onWarehouseReady, onWarehouse, errors, onErrors }: SourceStepProps) {
  const apps = useAppsQuery(orgId);
  const payments = usePaymentsQuery(orgId);
  const destinations = useIntegrationsQuery({ orgId, kind: 'destination' });
  const org = `/${encodeURIComponent(orgId)}`;
  const error = errors.source?.[0] ?? errors['source.type']?.[0] ?? errors['source.destinationId']?.[0];
  if (apps.isLoading || payments.isLoading || destinations.isLoading) return <Spinner label="Loading your sources" />;
  if (apps.error || payments.error || destinations.error)
    return <Alert>{messageOf(apps.error ?? payments.error ?? destinations.error, 'Could not load your sources.')}</Alert>;
  const appList = apps.data ?? [];
  const paymentList = payments.data ?? [];
  const warehouses = (destinations.data ?? []).filter(isWarehouse);
  const reading = warehouses.find((candidate) => draft.source === `${candidate.platform}:${candidate.id}`);
  if (appList.length === 0 && paymentList.length === 0 && warehouses.length === 0) {
    return (
      <div className="empty-state stack" data-testid="empty-state" style={{ alignItems: 'center' }}>
        <p>
          No apps or payment accounts yet. Conversions come from your website&apos;s form submissions, your Stripe payments, or rows of
          BigQuery and events of Mixpanel.
        </p>
        <div className="actions" style={{ justifyContent: 'center' }}>
          <Link className="button" href={`${org}/app/connect`}>
            Add an app
          </Link>
          <Link className="button button--secondary" href={`${org}/payment`}>
            Connect Stripe
          </Link>
          <Link className="button button--secondary" href={`${org}/destination`}>
            Connect BigQuery or Mixpanel
          </Link>
        </div>
      </div>
    );
  }
  const pick = (value: string) => {
    const warehouse = warehouses.find((candidate) => value === `${candidate.platform}:${candidate.id}`);
    onPick(value);
    // A warehouse source's draft comes with its fields, which load now.
    if (warehouse)
      void Promise.all([import('@/components/conversions/warehouseDefaults'), import('@/components/conversions/warehouseDraft')]).then(
        ([{ newWarehouseDraft }, helpers]) => {
          warehouseHelpers = helpers;
          onWarehouseReady(value, newWarehouseDraft(warehouse, plan));
        },
      );
  };
  return (
    <div className="stack">
      <fieldset className={styles.fieldset} aria-describedby={error ? 'source-error' : undefined}>
        <legend className={styles.legend}>Where do the events come from?</legend>
        {appList.length > 0 && (
          <>
            <h3 className={styles.groupTitle}>Apps</h3>
            <ul className={styles.choices}>
              {appList.map((app) => (
                <Choice
                  key={app.id}
                  name="source"
                  value={`app:${app.id}`}
                  checked={draft.source === `app:${app.id}`}
                  onChange={pick}
                  title={app.name}
                  detail={`Form submissions on ${app.websiteUrl}`}
                />
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
                  onChange={pick}
                  title={payment.name}
                  detail={`Successful Stripe payments (${payment.livemode ? 'live' : 'test'} mode)`}
                />
              ))}
            </ul>
          </>
        )}
        {warehouses.length > 0 && (
          <>
            <h3 className={styles.groupTitle}>Warehouse and analytics</h3>
            <ul className={styles.choices}>
              {warehouses.map((warehouse) => (
                <Choice
                  key={warehouse.id}
                  name="source"
                  value={`${warehouse.platform}:${warehouse.id}`}
                  checked={draft.source === `${warehouse.platform}:${warehouse.id}`}
                  onChange={pick}
                  title={warehouse.name}
                  detail={
                    warehouse.platform === 'bigquery'
                      ? 'Rows of a BigQuery table or of your own SELECT, read on a schedule'
                      : `Events of Mixpanel project ${warehouse.settings.projectId ?? ''}, read on a schedule`.replace(' ,', ',')
                  }
                />
              ))}
            </ul>
          </>
        )}
        <FieldError id="source-error" error={error} />
        <p className="muted">
          Another source? <Link href={`${org}/app/connect`}>Add an app</Link>, <Link href={`${org}/payment`}>connect Stripe</Link>, or{' '}
          <Link href={`${org}/destination`}>connect BigQuery or Mixpanel</Link> to read from it.
        </p>
      </fieldset>
      {reading && !draft.warehouse && <Spinner label="Loading the fields" />}
      {reading && draft.warehouse && (
        <WarehouseSourceFields
          orgId={orgId}
          plan={plan}
          destination={reading}
          draft={draft.warehouse}
          onChange={onWarehouse}
          errors={errors}
          onErrors={onErrors}
          sendsTo={draft.destinationId || undefined}
        />
      )}
    </div>
  );
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
    const changed = warehouseHelpers?.changedFields(draft.warehouse, warehouse) ?? ['source'];
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
          Send first-party conversions from your website, your payments or your warehouse to an ad platform, server-side.
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
