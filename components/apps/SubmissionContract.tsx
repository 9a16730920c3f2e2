import CodeBlock from '@/components/ui/CodeBlock';
import styles from '@/components/apps/apps.module.css';
import ScrollRegion from '@/components/ui/ScrollRegion';
import TableHead from '@/components/ui/TableHead';
import { PLATFORM_LABELS } from '@/lib/shared/integrations/platforms';
import { contractAnswers, contractFields, EXAMPLE_BATCH, EXAMPLE_EVENT, LIMITS, NOT_TAKEN } from '@/lib/shared/schemas/submissionContract';

const curl = (endpoint: string, body: unknown) =>
  [
    `curl -X POST ${endpoint} \\`,
    '  -H "Authorization: Bearer $SIGNALBRIDGE_KEY" \\',
    '  -H "Content-Type: application/json" \\',
    `  -d '${JSON.stringify(body)}'`,
  ].join('\n');

/** NOT_TAKEN by platform, in its order: "Meta Ads" → its reasons. */
function notTakenByPlatform(): Array<[string, string[]]> {
  const byPlatform = new Map<string, string[]>();
  for (const row of NOT_TAKEN)
    byPlatform.set(PLATFORM_LABELS[row.platform], [...(byPlatform.get(PLATFORM_LABELS[row.platform]) ?? []), row.when]);
  return [...byPlatform];
}

/**
 * The contract of POST /api/submissions, read off the schema the route validates with (fields,
 * limits, answers). Loaded after the page's first paint: it carries zod, which the page does not need.
 */
export default function SubmissionContract({ endpoint }: { endpoint: string }) {
  const fields = contractFields();
  return (
    <div className="stack" style={{ gap: '1.25rem' }} data-testid="submission-contract">
      <section className="stack" aria-labelledby="request-title">
        <h3 id="request-title">Request</h3>
        <p style={{ margin: 0 }}>
          Send one event as a JSON object, or up to {LIMITS.events} events as <code>{'{"events": [ … ]}'}</code>, with your secret key in
          the <code>Authorization: Bearer</code> header (never in the URL). A request is at most {LIMITS.bytes / 1024 / 1024} MB. The
          examples read the key from <code>SIGNALBRIDGE_KEY</code>.
        </p>
        <p style={{ margin: 0 }}>
          The first is a complete website event: the <code>pageUrl</code> it happened on with the visitor&apos;s own <code>userAgent</code>{' '}
          and <code>ip</code> (from your server, pass the browser&apos;s), and identifiers to match it by. An event without a{' '}
          <code>pageUrl</code> is a server event, which needs neither.
        </p>
        <CodeBlock title="One event" code={curl(endpoint, EXAMPLE_EVENT)} testId="example-single" />
        <CodeBlock title="A batch" code={curl(endpoint, EXAMPLE_BATCH)} testId="example-batch" />
      </section>
      <section className="stack" aria-labelledby="fields-title">
        <h3 id="fields-title">Event fields</h3>
        <p className="muted" style={{ margin: 0 }}>
          Personal fields may come in clear or already SHA-256 hashed: we hash them before anything is kept. A field not listed here is
          ignored, never stored, and named in the answer&apos;s <code>warnings</code>.
        </p>
        <ScrollRegion label="Event fields (scrolls sideways)">
          <table className={styles.fields} data-testid="contract-fields" aria-labelledby="fields-title">
            <TableHead columns={['Field', 'Value', 'Meaning']} actions={false} />
            <tbody>
              {fields.map((field) => (
                <tr key={field.name}>
                  <td>
                    <code>{field.name}</code>
                    {field.required && <span className="muted"> (required)</span>}
                  </td>
                  <td>{field.type}</td>
                  <td>{field.meaning}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </section>
      <section className="stack" aria-labelledby="not-taken-title">
        <h3 id="not-taken-title">Events a platform will not take</h3>
        <p className="muted" style={{ margin: 0 }}>
          Such an event is still accepted (202): the answer&apos;s <code>warnings</code> names each conversion of this app that will not
          send it, its platform and the reason, and that conversion&apos;s delivery log shows it <em>not sent</em> with the same reason.
          BigQuery and Mixpanel keep what they are given.
        </p>
        <ScrollRegion label="Events a platform will not take (scrolls sideways)">
          <table className={styles.fields} data-testid="not-taken" aria-labelledby="not-taken-title">
            <TableHead columns={['Platform', 'Not sent when']} actions={false} />
            <tbody>
              {notTakenByPlatform().map(([platform, reasons]) => (
                <tr key={platform}>
                  <td>{platform}</td>
                  <td>{reasons.join('; ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </section>
      <section className="stack" aria-labelledby="answers-title">
        <h3 id="answers-title">Answers</h3>
        <p className="muted" style={{ margin: 0 }}>
          Every refusal is JSON: <code>{'{ success: false, code, message, fieldErrors? }'}</code>. A publishable key used from another
          website is refused with 403 <code>origin_not_allowed</code>.
        </p>
        {contractAnswers().map((answer) => (
          <div key={answer.title} className="stack" style={{ gap: '0.25rem' }}>
            <CodeBlock title={answer.title} code={answer.answer} />
            <p className="muted" style={{ margin: 0 }}>
              {answer.when}
            </p>
          </div>
        ))}
      </section>
    </div>
  );
}
