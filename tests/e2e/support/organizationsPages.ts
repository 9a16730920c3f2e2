import { type Locator, type Page } from 'playwright/test';

/** /onboarding: the first organization of a user who has none, and the invitations waiting for them. */
export class OnboardingPage {
  constructor(readonly page: Page) {}

  get verifyEmail(): Locator {
    return this.page.getByRole('region', { name: 'Verify your email' });
  }

  get invitations(): Locator {
    return this.page.getByRole('list', { name: 'Invitations for you' });
  }

  async createOrganization(name: string) {
    await this.page.getByLabel('Organization name').fill(name);
    await this.page.getByRole('button', { name: 'Create organization' }).click();
  }
}

/** /organizations: the user's organizations (every one for a super admin), a new one, and invitations. */
export class OrganizationsPage {
  constructor(readonly page: Page) {}

  get list(): Locator {
    return this.page.getByRole('list', { name: 'Organizations' });
  }

  /** Each organization is a button of the list. */
  get entries(): Locator {
    return this.list.getByRole('button');
  }

  get invitations(): Locator {
    return this.page.getByRole('list', { name: 'Invitations for you' });
  }

  get newOrganizationDialog(): Locator {
    return this.page.getByRole('dialog', { name: 'New organization' });
  }

  async goto() {
    await this.page.goto('/organizations');
  }

  async newOrganization() {
    await this.page.getByRole('button', { name: 'New organization' }).click();
  }

  /** Sends the open dialog, with `name` typed in first (without one, as it is). */
  async createOrganization(name?: string) {
    if (name !== undefined) await this.newOrganizationDialog.getByLabel('Organization name').fill(name);
    await this.newOrganizationDialog.getByRole('button', { name: 'Create organization' }).click();
  }

  async search(name: string) {
    await this.page.getByLabel('Search by name').fill(name);
  }

  async open(name: RegExp) {
    await this.list.getByRole('button', { name }).click();
  }
}
