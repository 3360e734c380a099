// Headless Debian Chromium for the dashboard tests, driven by playwright-core. Nothing is skipped: a missing
// browser is installed with apt-get when the tests run as root (as CI does), and otherwise the tests fail saying how.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * The flags this machine needs: no sandbox (root), no GPU, and no background connections, which a closed network
 * refuses many at a time (docs/operations.md, machines/node.md).
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Installs Debian's chromium when it is missing and we may (root, apt-get present); throws with what to do otherwise. */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: ['ignore', 'ignore', 'ignore'] }).status === 0;
  if (!isRoot || !hasApt) {
    throw new Error(
      `the dashboard tests need Debian's chromium at ${CHROMIUM}: run \`apt-get install -y chromium\` as root (.ci/run does), then run the tests again`,
    );
  }
  process.stderr.write(`installing chromium (apt-get) for the dashboard tests: ${CHROMIUM} is missing\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', 'chromium'],
  ]) {
    const run = spawnSync('apt-get', args, { env, stdio: ['ignore', 'inherit', 'inherit'], timeout: 15 * 60_000 });
    if (run.status !== 0)
      throw new Error(`apt-get ${args.join(' ')} failed (exit ${run.status ?? run.signal}): chromium could not be installed for the dashboard tests`);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is still missing`);
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh browser with a new, empty profile (its own --user-data-dir, removed on close). */
export async function launchChromium(): Promise<Browser> {
  ensureChromium();
  const profile = mkdtempSync(join(tmpdir(), 'hookwise-chromium-'));
  // Playwright passes the profile as --user-data-dir itself (it refuses the flag in args).
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 60_000 });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The jest hooks of a dashboard test file: one browser for the file; each test gets a new page (15 s default
 * timeout), handed to `usePage`. After each test the page is closed, the browser's cookies are cleared (a sign-in
 * does not carry over to the next test) and `afterPage` runs (the place to stop the test's gateway).
 */
export function pagePerTest(usePage: (page: Page) => void, afterPage: () => Promise<void>): void {
  let browser: Browser | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    page = await browser!.context.newPage();
    page.setDefaultTimeout(15_000);
    usePage(page);
  });
  afterEach(async () => {
    await page?.close().catch(() => undefined);
    await browser?.context.clearCookies();
    await afterPage();
  });
}

/** What a dashboard test file gets from dashboardPerTest. */
export interface DashboardTest {
  /** The running test's page (a new one for each test): read it inside a test, not at the top of the file. */
  readonly page: Page;
  /** Has `gateway` stopped after the running test (passed or failed) and returns it. */
  stopAfter<G extends { stop(): Promise<void> }>(gateway: G): G;
}

/**
 * The set-up every dashboard test file shares: 90 s per test (a browser start and a real gateway), pagePerTest's
 * browser and page, and the gateways the test hands to `stopAfter` stopped when it ends.
 */
export function dashboardPerTest(): DashboardTest {
  jest.setTimeout(90_000);
  let page: Page | undefined;
  const running: Array<{ stop(): Promise<void> }> = [];
  pagePerTest(
    (opened) => (page = opened),
    async () => {
      for (const gateway of running.splice(0)) await gateway.stop();
    },
  );
  return {
    get page() {
      if (!page) throw new Error('the dashboard page is opened for each test: read `page` inside it(...), not at the top of the file');
      return page;
    },
    stopAfter(gateway) {
      running.push(gateway);
      return gateway;
    },
  };
}

/** Signs in on the gateway at `url` with the admin token, as an operator does, and waits for the dashboard. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/ui/login`);
  await page.fill('input[name="token"]', token);
  await page.click('form.login button[type="submit"]');
  await page.waitForURL(`${url}/ui`);
}

/** Where screenshots go: HOOKWISE_UI_SCREENSHOTS, or a new temp dir. */
export const screenshotDir = (() => {
  let dir: string | undefined;
  return () => {
    dir ??= process.env.HOOKWISE_UI_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'hookwise-ui-screenshots-'));
    mkdirSync(dir, { recursive: true });
    return dir;
  };
})();

/**
 * Runs a step of a UI test; when it fails, the page's screenshot is saved and its path printed and added to the
 * error. With HOOKWISE_UI_SCREENSHOTS set, a screenshot is kept after every step (to look at the pages).
 */
export async function step<T>(page: Page, name: string, run: () => Promise<T>): Promise<T> {
  const file = (suffix: string) => join(screenshotDir(), `${name.replace(/[^a-z0-9-]+/gi, '-')}${suffix}.png`);
  try {
    const result = await run();
    if (process.env.HOOKWISE_UI_SCREENSHOTS) await page.screenshot({ path: file(''), fullPage: true });
    return result;
  } catch (err) {
    const path = file('-FAILED');
    const saved = await page.screenshot({ path, fullPage: true }).then(
      () => true,
      () => false,
    );
    if (saved) {
      process.stderr.write(`dashboard test step '${name}' failed; screenshot: ${path}\n`);
      if (err instanceof Error) err.message = `${err.message}\n(screenshot of the page: ${path})`;
    }
    throw err;
  }
}
