import { useEffect, useState, type ChangeEvent, type FormEvent } from 'react';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';
import { ACCEPTED_LOGO_TYPES, readImageAsDataUrl } from '@/components/organizations/logo';
import { apiRequest, ApiRequestError } from '@/lib/client/apiClient';
import { useAppDispatch, useAppSelector } from '@/store/hooks';
import { fetchOrganizations } from '@/store/thunks';
import { organizationSelected, selectUser } from '@/store/userSlice';

/** The handler's schema, loaded after the form is shown: zod is not part of the page's first load. */
const loadSchema = () => import('@/lib/shared/schemas/organization').then((module) => module.createOrganizationSchema);

/**
 * Name and optional logo. On success the new organization is selected and `onCreated` is given the page it
 * opens on: its plans, since a new organization has no subscription yet (any other page of it would be
 * refused, 402, until one is chosen).
 */
export default function CreateOrganizationForm({ onCreated }: { onCreated: (path: string) => Promise<unknown> }) {
  const dispatch = useAppDispatch();
  const user = useAppSelector(selectUser);
  const [companyName, setCompanyName] = useState('');
  const [logo, setLogo] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string[]>>({});
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void loadSchema().catch(() => undefined);
  }, []);
  const [busy, setBusy] = useState(false);

  async function chooseLogo(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    setLogo(file ? await readImageAsDataUrl(file) : null);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    const input = { companyName, userId: user.uid ?? '', isDefault: true, company_logo: logo };
    const parsed = (await loadSchema()).safeParse(input);
    if (!parsed.success) {
      const errors: Record<string, string[]> = {};
      for (const issue of parsed.error.issues) (errors[String(issue.path[0])] ??= []).push(issue.message);
      setFieldErrors(errors);
      return;
    }
    setFieldErrors({});
    setBusy(true);
    try {
      const { organizationId } = await apiRequest<{ organizationId: string }>('/api/createOrganization', {
        method: 'POST',
        body: parsed.data,
      });
      dispatch(organizationSelected({ orgId: organizationId, organization: { name: parsed.data.companyName, logo } }));
      // Leave first, then refresh the list: on /onboarding a list with an organization in it would send the
      // guard to the organization's connections (PRODUCT.md §3), a page the new organization cannot open yet.
      await onCreated(`/${encodeURIComponent(organizationId)}/subscription`);
      await dispatch(fetchOrganizations());
    } catch (caught) {
      if (caught instanceof ApiRequestError) setFieldErrors(caught.fieldErrors);
      setError(caught instanceof Error ? caught.message : 'An unexpected error occurred');
      setBusy(false);
    }
  }

  return (
    <form className="stack" onSubmit={submit} noValidate aria-label="Create organization">
      {error && <Alert>{error}</Alert>}
      <TextField
        label="Organization name"
        name="companyName"
        value={companyName}
        onChange={(e) => setCompanyName(e.target.value)}
        error={fieldErrors.companyName?.[0]}
        autoFocus
      />
      <TextField
        label="Logo (optional: PNG, JPEG or WebP, up to 256 kB)"
        name="company_logo"
        type="file"
        accept={ACCEPTED_LOGO_TYPES}
        onChange={chooseLogo}
        error={fieldErrors.company_logo?.[0]}
      />
      <Button type="submit" busy={busy}>
        Create organization
      </Button>
    </form>
  );
}
