import { useState, type FormEvent } from 'react';
import { fieldErrorsOf, formFailureOf } from '@/components/ui/failures';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import ConfirmDialog from '@/components/ui/ConfirmDialog';
import Notice, { type NoticeValue } from '@/components/ui/Notice';
import Spinner from '@/components/ui/Spinner';
import TextField from '@/components/ui/TextField';
import { useSaveSlackSettingsMutation, useSendSlackTestMutation, useSlackSettingsQuery } from '@/store/alertsApi';

/** Owners and admins: the Slack incoming webhook alerts are posted to (https only), with a test message. */
export default function SlackSettings({ orgId }: { orgId: string }) {
  const { data, isLoading, error } = useSlackSettingsQuery(orgId);
  const [save, saving] = useSaveSlackSettingsMutation();
  const [sendTest, testing] = useSendSlackTestMutation();
  const [url, setUrl] = useState('');
  const [notice, setNotice] = useState<NoticeValue | null>(null);
  const [confirmRemove, setConfirmRemove] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setNotice(null);
    const result = await save({ orgId, webhookUrl: url.trim() || '' });
    if (!('error' in result)) {
      setUrl('');
      setNotice({ ok: true, text: 'Saved. Send a test message to check it reaches your channel.' });
    }
  }

  async function remove() {
    setNotice(null);
    const result = await save({ orgId, webhookUrl: null });
    setConfirmRemove(false);
    setNotice('error' in result ? { ok: false, text: messageOf(result.error, 'Could not remove it.') } : { ok: true, text: 'Removed.' });
  }

  async function test() {
    setNotice(null);
    const result = await sendTest(orgId);
    setNotice(
      'error' in result
        ? { ok: false, text: messageOf(result.error, 'The test message could not be sent.') }
        : { ok: true, text: 'Test message sent.' },
    );
  }

  const fieldErrors = fieldErrorsOf(saving.error);
  return (
    <section className="section card" id="alerts-slack" aria-labelledby="slack-title">
      <h2 id="slack-title">Alerts in Slack</h2>
      <p className="muted">
        Alerts also go to a Slack channel through an{' '}
        <a href="https://api.slack.com/messaging/webhooks" target="_blank" rel="noreferrer">
          incoming webhook
        </a>{' '}
        (an https URL from Slack). Emails and in-app notices go on either way.
      </p>
      {isLoading ? (
        <Spinner label="Loading the Slack settings" />
      ) : error || !data ? (
        <Alert>{messageOf(error, 'The Slack settings could not be loaded.')}</Alert>
      ) : (
        <>
          {data.configured && (
            <div className="actions" style={{ justifyContent: 'flex-start' }}>
              <span>
                Posting to <code data-testid="slack-hint">{data.hint}</code>
              </span>
              <Button type="button" variant="secondary" busy={testing.isLoading} onClick={() => void test()}>
                Send a test message
              </Button>
              <Button type="button" variant="secondary" onClick={() => setConfirmRemove(true)}>
                Remove
              </Button>
            </div>
          )}
          <form className="stack" onSubmit={submit} noValidate>
            {formFailureOf(saving.error) && <Alert>{messageOf(saving.error, 'Could not save.')}</Alert>}
            <TextField
              label={data.configured ? 'Replace the webhook URL' : 'Webhook URL'}
              type="url"
              placeholder="https://hooks.slack.com/services/…"
              value={url}
              onChange={(event) => setUrl(event.target.value)}
              error={fieldErrors.webhookUrl?.[0]}
              autoComplete="off"
            />
            <div className="actions">
              <Button type="submit" busy={saving.isLoading} disabled={!url.trim()}>
                Save webhook
              </Button>
            </div>
          </form>
        </>
      )}
      <Notice notice={notice} />
      <ConfirmDialog
        open={confirmRemove}
        title="Stop posting alerts to Slack?"
        confirmLabel="Remove webhook"
        busy={saving.isLoading}
        onConfirm={() => void remove()}
        onCancel={() => setConfirmRemove(false)}
      >
        Alerts will still be emailed and listed under Notifications.
      </ConfirmDialog>
    </section>
  );
}
