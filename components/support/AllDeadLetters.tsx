import { useAllDeadLettersQuery } from '@/store/deadLettersApi';

/**
 * For super admins: what every organization's queues set aside after 20 attempts, in total and by
 * organization, with the command that sends them again; nothing while there are none.
 */
export default function AllDeadLetters() {
  const { data } = useAllDeadLettersQuery();
  if (!data) return null;
  const { conversions, sync } = data.total;
  if (conversions.messages + sync.messages === 0) return null;
  return (
    <div role="status" className="alert alert--error stack" style={{ gap: '0.4rem' }} data-testid="all-dead-letters">
      <strong>
        Dead letters: {conversions.events.toLocaleString('en-US')} conversion events ({conversions.messages.toLocaleString('en-US')}{' '}
        messages) and {sync.messages.toLocaleString('en-US')} sync jobs set aside after 20 attempts.
      </strong>
      <span>
        {data.byOrganization
          .slice(0, 5)
          .map((row) => `${row.org ?? 'no organization'}: ${row.messages}`)
          .join(' · ')}
      </span>
      <span>
        Once the cause is fixed, send them again with <code>npm run dead-letters -- --replay</code> (add <code>--org &lt;id&gt;</code> for
        one organization).
      </span>
    </div>
  );
}
