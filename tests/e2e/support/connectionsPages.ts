import { type Locator, type Page } from 'playwright/test';

/** /{org}/connection: the list, or the three-step guide of an organization without connections. */
export class ConnectionsPage {
  constructor(readonly page: Page) {}

  get heading(): Locator {
    return this.page.getByRole('heading', { name: 'Connections', level: 1 });
  }

  /** The guide's steps: a source, a destination, the connection. */
  get guideSteps(): Locator {
    return this.page.getByRole('list', { name: 'Getting started' }).getByRole('listitem');
  }

  get createLink(): Locator {
    return this.page.getByRole('link', { name: 'Create a connection' });
  }

  async goto(orgId: string) {
    await this.page.goto(`/${orgId}/connection`);
  }

  row(name: string): Locator {
    return this.page.getByRole('row', { name: new RegExp(name) });
  }
}

export interface ConnectionChoices {
  /** The ad accounts of the first source to read. */
  accounts: RegExp[];
  level?: 'campaign';
  lookbackDays?: number;
  name?: string;
}

/** /{org}/createConnection: the form (its first source and first destination are the ones a test connected). */
export class NewConnectionPage {
  constructor(readonly page: Page) {}

  get source(): Locator {
    return this.page.getByLabel('Source', { exact: true });
  }
  get destination(): Locator {
    return this.page.getByLabel('Destination', { exact: true });
  }
  get lookback(): Locator {
    return this.page.getByLabel('Lookback (days)');
  }
  get schedule(): Locator {
    return this.page.getByLabel('Schedule', { exact: true });
  }
  get fifteenMinutes(): Locator {
    return this.schedule.locator('option[value="15_minutes"]');
  }
  get name(): Locator {
    return this.page.getByLabel('Name', { exact: true });
  }

  async goto(orgId: string) {
    await this.page.goto(`/${orgId}/createConnection`);
  }

  /** Picks the first source and its `accounts`, the first destination, then the rest that is given. */
  async choose({ accounts, level, lookbackDays, name }: ConnectionChoices) {
    await this.source.selectOption({ index: 1 });
    for (const account of accounts) await this.page.getByRole('checkbox', { name: account }).check();
    await this.destination.selectOption({ index: 1 });
    if (level) await this.page.getByLabel('Level of detail').selectOption(level);
    if (lookbackDays !== undefined) await this.lookback.fill(String(lookbackDays));
    if (name !== undefined) await this.name.fill(name);
  }

  async submit() {
    await this.page.getByRole('button', { name: 'Create connection' }).click();
  }

  async create(choices: ConnectionChoices) {
    await this.choose(choices);
    await this.submit();
  }
}

/** /{org}/connection/{id}/configuration: a connection's runs, backfill and settings. */
export class ConnectionPage {
  constructor(readonly page: Page) {}

  get history(): Locator {
    return this.page.getByRole('table', { name: 'Run history' });
  }

  /** The history's rows of one kind ('Scheduled', 'Run now', 'Backfill'). */
  runs(kind: string): Locator {
    return this.history.getByRole('row').filter({ hasText: kind });
  }

  get runNowButton(): Locator {
    return this.page.getByRole('button', { name: 'Run now' });
  }

  get backfillFrom(): Locator {
    return this.page.getByLabel('Backfill from');
  }
  get startBackfillButton(): Locator {
    return this.page.getByRole('button', { name: 'Start backfill' });
  }
}
