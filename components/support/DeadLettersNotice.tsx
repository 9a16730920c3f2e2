import { useDeadLettersQuery } from '@/store/deadLettersApi';

const plural = (count: number, one: string, many: string) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

/**
 * Says when this organization's conversion events or sync jobs were set aside after 20 attempts (dead
 * letters), and what happens to them; nothing while there are none or the count cannot be read.
 */
export default function DeadLettersNotice({ orgId, queue }: { orgId: string; queue: 'conversions' | 'sync' }) {
  const { data } = useDeadLettersQuery(orgId, { skip: !orgId });
  const counts = data?.[queue];
  if (!counts || counts.messages === 0) return null;
  const what =
    queue === 'conversions'
      ? `${plural(counts.events, 'conversion event', 'conversion events')} could not be delivered after 20 attempts`
      : `${plural(counts.messages, 'sync job', 'sync jobs')} could not run after 20 attempts`;
  return (
    <div role="status" className="alert alert--error" data-testid={`dead-letters-${queue}`}>
      {what}. Nothing is lost: they are set aside, our support team is told, and they are sent again once the cause is fixed.
    </div>
  );
}
