import { useState, type FormEvent } from 'react';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';
import { readImageAsDataUrl, ACCEPTED_LOGO_TYPES } from '@/components/organizations/logo';
import { can, type Role } from '@/lib/shared/permissions';
import type { OrganizationDocument } from '@/lib/shared/schemas/organization';
import { useUpdateOrganizationMutation } from '@/store/api';
import { useAppDispatch } from '@/store/hooks';
import { fetchOrganization } from '@/store/thunks';

interface Props {
  orgId: string;
  role: Role;
  document: OrganizationDocument;
}

/** Name and logo; read-only for members. */
export default function OrganizationProfileForm({ orgId, role, document }: Props) {
  const dispatch = useAppDispatch();
  const editable = can(role, 'organization', 'update');
  const [name, setName] = useState(document.name);
  const [logo, setLogo] = useState<string | null>(document.logo);
  const [saved, setSaved] = useState(false);
  const [update, { isLoading, error }] = useUpdateOrganizationMutation();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    const result = await update({ orgId, companyName: name, company_logo: logo });
    if (!('error' in result)) {
      setSaved(true);
      void dispatch(fetchOrganization(orgId));
    }
  }

  const fieldErrors = (error as { fieldErrors?: Record<string, string[]> } | undefined)?.fieldErrors ?? {};
  return (
    <section className="section card" aria-labelledby="profile-title">
      <h2 id="profile-title">Organization</h2>
      <form className="stack" onSubmit={submit} noValidate>
        {saved && (
          <div role="status" className="alert alert--success">
            Saved.
          </div>
        )}
        {error && !Object.keys(fieldErrors).length && <Alert>{(error as { message?: string }).message ?? 'Could not save.'}</Alert>}
        <TextField
          label="Organization name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          readOnly={!editable}
          error={fieldErrors.companyName?.[0]}
        />
        {logo && (
          // eslint-disable-next-line @next/next/no-img-element -- a data URL or an external image
          <img src={logo} alt="Current logo" width={48} height={48} style={{ borderRadius: 8, objectFit: 'cover' }} />
        )}
        {editable && (
          <>
            <TextField
              label="Logo (PNG, JPEG or WebP, up to 256 kB)"
              type="file"
              accept={ACCEPTED_LOGO_TYPES}
              onChange={async (e) => setLogo(e.target.files?.[0] ? await readImageAsDataUrl(e.target.files[0]) : logo)}
            />
            <TextField
              label="…or an image URL"
              type="url"
              placeholder="https://example.com/logo.png"
              value={logo?.startsWith('data:') ? '' : (logo ?? '')}
              onChange={(e) => setLogo(e.target.value || null)}
              error={fieldErrors.company_logo?.[0]}
            />
            <div className="actions">
              {logo && (
                <Button type="button" variant="secondary" onClick={() => setLogo(null)}>
                  Remove logo
                </Button>
              )}
              <Button type="submit" busy={isLoading}>
                Save
              </Button>
            </div>
          </>
        )}
      </form>
    </section>
  );
}
