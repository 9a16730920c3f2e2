import styles from '@/components/conversions/conversions.module.css';
import { MappingInWords, sourceLabel } from '@/components/conversions/shared';
import { scheduleInWords } from '@/lib/shared/connections/connection';
import { isWarehouseSource, type ConversionMapping, type ConversionSource } from '@/lib/shared/conversions/conversion';
import type { App, Payment } from '@/lib/shared/integrations/apps';
import {
  PLATFORM_LABELS,
  TARGET_LABEL,
  type AdAccount,
  type AdPlatform,
  type ConversionTarget,
  type Integration,
} from '@/lib/shared/integrations/platforms';

interface Props {
  source: ConversionSource;
  /** The app's or payment account's name. */
  sourceName: string | undefined;
  apps: App[] | undefined;
  payments: Payment[] | undefined;
  destination: Integration & { platform: AdPlatform };
  account: AdAccount | null;
  target: ConversionTarget | null;
  /** The ids picked, shown while their names load. */
  choice: { accountId: string; targetId: string };
  mapping: ConversionMapping;
}

/** What the create flow's last step sums up before Create: source, destination, target and mapping in words. */
export default function ReviewSummary({ source, sourceName, apps, payments, destination, account, target, choice, mapping }: Props) {
  return (
    <dl className={styles.review} aria-label="Summary">
      <dt>Source</dt>
      <dd>
        {source.type === 'app' || source.type === 'payments' ? (
          <>
            {source.type === 'app' ? 'Form submissions of the app' : 'Successful payments of'} “{sourceName ?? '…'}”
          </>
        ) : (
          sourceLabel(source, apps, payments)
        )}
      </dd>
      {isWarehouseSource(source) && (
        <>
          <dt>Read</dt>
          <dd>
            {scheduleInWords(source.schedule)}
            {source.type === 'bigquery' ? `, rows with ${source.cursorColumn} at or past the last read` : ', new events by day'}; the first
            read starts once it is created.
          </dd>
        </>
      )}
      <dt>Destination</dt>
      <dd>
        {destination.name} ({PLATFORM_LABELS[destination.platform]})
      </dd>
      <dt>Ad account</dt>
      <dd>{account ? `${account.name || account.id} · ${account.id}` : choice.accountId}</dd>
      <dt>{TARGET_LABEL[destination.platform]}</dt>
      <dd>{target ? `${target.name} · ${target.id}` : choice.targetId}</dd>
      <MappingInWords source={source} mapping={mapping} />
    </dl>
  );
}
