import { useConnect } from '@/components/integrations/useConnect';
import Button from '@/components/ui/Button';
import { isOAuthPlatform, PLATFORM_LABELS, type Integration } from '@/lib/shared/integrations/platforms';

/** What a marketer needs to know when a platform dropped our access, and the one click that fixes it. */
export function ReconnectButton({ orgId, integration, small = false }: { orgId: string; integration: Integration; small?: boolean }) {
  const connect = useConnect(orgId);
  const { platform } = integration;
  if (!isOAuthPlatform(platform)) return null;
  return (
    <Button
      type="button"
      className={small ? 'button--small' : undefined}
      onClick={() => connect(platform, integration.kind, integration.id)}
    >
      Reconnect {PLATFORM_LABELS[platform]}
    </Button>
  );
}

export default function ReconnectNotice({ orgId, integration }: { orgId: string; integration: Integration }) {
  const label = PLATFORM_LABELS[integration.platform];
  return (
    <div role="alert" className="alert alert--error stack">
      <strong>{label} has disconnected SignalBridge.</strong>
      <span>
        The login {integration.accountName ? `of ${integration.accountName} ` : ''}expired or its access was removed, so no data moves until
        you reconnect.{' '}
        {isOAuthPlatform(integration.platform)
          ? `Sign in to ${label} again; your settings stay as they are.`
          : 'Connect it again with new credentials.'}
      </span>
      <div>
        <ReconnectButton orgId={orgId} integration={integration} />
      </div>
    </div>
  );
}
