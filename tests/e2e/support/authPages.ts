import { expect, type Locator, type Page } from 'playwright/test';
import { persistedState, type TestUser } from '@/tests/e2e/helpers';

/** Where a sign-in or sign-up leads: a path, or a pattern when the path is not known in advance. */
export type Landing = string | RegExp;

/** /login: the email and password form. */
export class LoginPage {
  constructor(readonly page: Page) {}

  /** The form's error, in the provider's words. */
  get alert(): Locator {
    return this.page.getByRole('form').getByRole('alert');
  }

  async submit(user: Pick<TestUser, 'email' | 'password'>, from = '/login') {
    await this.page.goto(from);
    await this.page.getByLabel('Email').fill(user.email);
    await this.page.getByLabel('Password').fill(user.password);
    await this.page.getByRole('button', { name: 'Log in' }).click();
  }

  /** Signs in as a person would and waits for the page the rules lead to. */
  async logIn(user: Pick<TestUser, 'email' | 'password'>, { from = '/login', landing }: { from?: string; landing: Landing }) {
    await this.submit(user, from);
    await expect(this.page).toHaveURL(landing);
  }
}

/** /signUp: full name, email and password. */
export class SignUpPage {
  constructor(readonly page: Page) {}

  get alert(): Locator {
    return this.page.getByRole('form').getByRole('alert');
  }
  get email(): Locator {
    return this.page.getByLabel('Email');
  }

  async goto() {
    await this.page.goto('/signUp');
  }

  /** Fills and sends the form where it is (the invitation page leads here with the email filled in). */
  async submit({ name = 'Ivy Invitee', email, password = 'secret123' }: { name?: string; email: string; password?: string }) {
    await this.page.getByLabel('Full name').fill(name);
    await this.email.fill(email);
    await this.page.getByLabel('Password').fill(password);
    await this.page.getByRole('button', { name: 'Create account' }).click();
  }

  /** Signs up, and stays signed in: the route guard takes the new user to `landing`. */
  async signUp(user: { name?: string; email: string; password?: string }, landing: Landing) {
    await this.submit(user);
    await expect(this.page).toHaveURL(landing);
  }
}

/** /forgotPassword: asks for a reset link. */
export class ForgotPasswordPage {
  constructor(readonly page: Page) {}

  get answer(): Locator {
    return this.page.getByRole('status');
  }
  get alert(): Locator {
    return this.page.getByRole('form').getByRole('alert');
  }

  async requestReset(email: string) {
    await this.page.goto('/forgotPassword');
    await this.page.getByLabel('Email').fill(email);
    await this.page.getByRole('button', { name: 'Send reset link' }).click();
  }
}

/** What every signed-in page around its content has: the main navigation and the user menu. */
export class AppShell {
  constructor(readonly page: Page) {}

  get nav(): Locator {
    return this.page.getByRole('navigation', { name: 'Main' });
  }
  get signedInEmail(): Locator {
    return this.page.getByTestId('signed-in-email');
  }

  /** Follows a link of the main navigation, as a click (not a full load) does. */
  async open(section: string) {
    await this.nav.getByRole('link', { name: section }).click();
  }

  /**
   * Signs out from the user menu and waits until the app has forgotten the user: the page moves to
   * /login at once (its queries stop while the token still exists), the sign-out finishes after that.
   */
  async signOut() {
    await this.page.getByRole('button', { name: 'Sign out' }).click();
    await expect(this.page).toHaveURL('/login');
    await expect
      .poll(async () => ((await persistedState(this.page)).user as { isAuthenticated?: boolean } | undefined)?.isAuthenticated)
      .toBe(false);
  }
}
