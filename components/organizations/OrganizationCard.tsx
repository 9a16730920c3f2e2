import type { OrganizationSummary } from '@/store/userSlice';

interface OrganizationCardProps {
  organization: OrganizationSummary;
  onChoose: (organization: OrganizationSummary) => void;
}

export default function OrganizationCard({ organization, onChoose }: OrganizationCardProps) {
  const { companyName, logo, connectionsCount } = organization;
  return (
    <li>
      <button type="button" className="org-card" onClick={() => onChoose(organization)}>
        {logo ? (
          // eslint-disable-next-line @next/next/no-img-element -- logos are user data URLs or external URLs
          <img className="org-card__logo" src={logo} alt="" />
        ) : (
          <span className="org-card__logo org-card__logo--initial" aria-hidden>
            {companyName.slice(0, 1).toUpperCase() || '?'}
          </span>
        )}
        <span className="org-card__name">{companyName}</span>
        <span className="muted">
          {connectionsCount} {connectionsCount === 1 ? 'connection' : 'connections'}
        </span>
      </button>
    </li>
  );
}
