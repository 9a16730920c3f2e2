import { expect, type Locator, type Page } from 'playwright/test';

/** /{org}/settings, its team part: members, invitations and the invite form. */
export class TeamPage {
  constructor(readonly page: Page) {}

  get members(): Locator {
    return this.page.getByRole('table', { name: 'Team members' });
  }
  get invitations(): Locator {
    return this.page.getByRole('table', { name: 'Invitations' });
  }
  get inviteForm(): Locator {
    return this.page.getByRole('form', { name: 'Invite a teammate' });
  }

  member(email: string): Locator {
    return this.members.getByRole('row', { name: new RegExp(email) });
  }
  invitation(email: string): Locator {
    return this.invitations.getByRole('row', { name: new RegExp(email) });
  }

  async goto(orgId: string) {
    await this.page.goto(`/${orgId}/settings`);
  }

  async invite(orgId: string, email: string) {
    await this.goto(orgId);
    await this.inviteForm.getByLabel('Email address').fill(email);
    await this.inviteForm.getByRole('button', { name: 'Send invitation' }).click();
    await expect(this.page.getByRole('status').filter({ hasText: `Invitation sent to ${email}` })).toBeVisible();
  }

  /** Revokes, after the confirmation. */
  async revokeInvitation(email: string) {
    await this.invitation(email).getByRole('button', { name: 'Revoke' }).click();
    await this.page.getByRole('dialog', { name: 'Revoke this invitation?' }).getByRole('button', { name: 'Revoke' }).click();
  }

  /** Removes, after the confirmation. */
  async removeMember(email: string) {
    await this.member(email).getByRole('button', { name: 'Remove' }).click();
    await this.page.getByRole('dialog', { name: 'Remove this member?' }).getByRole('button', { name: 'Remove' }).click();
  }
}
