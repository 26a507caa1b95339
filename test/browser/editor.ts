/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * What a user does in n8n's editor, in Debian's chromium driven by playwright-core (no browser
 * download). Elements are found by n8n's data-test-id attributes and by the names a user reads.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

/** Debian's chromium (apt package `chromium`); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
/** Every single wait for the page is bounded by this. */
const STEP_TIMEOUT_MS = 30_000;

export async function launchChromium(): Promise<Browser> {
	if (!existsSync(CHROMIUM_PATH)) {
		throw new Error(
			`no chromium at ${CHROMIUM_PATH}: install it with \`bash scripts/e2e/provide-debian-packages.sh chromium\` (or set CHROMIUM_PATH)`,
		);
	}
	// --no-sandbox: CI containers run as root, where chromium's sandbox refuses to start
	return await chromium.launch({
		executablePath: CHROMIUM_PATH,
		args: ['--no-sandbox', '--disable-dev-shm-usage'],
		timeout: 60_000,
	});
}

export class Editor {
	/**
	 * `docsImagesDir`: where the screenshots the documentation shows go (docs/images), for the
	 * line the documentation is written for; undefined for the other line.
	 */
	constructor(
		readonly page: Page,
		readonly baseUrl: string,
		private readonly shotsDir: string,
		private readonly docsImagesDir?: string,
	) {
		page.setDefaultTimeout(STEP_TIMEOUT_MS);
		mkdirSync(shotsDir, { recursive: true });
	}

	testId(id: string) {
		return this.page.locator(`[data-test-id="${id}"]`);
	}

	async screenshot(name: string): Promise<string> {
		const file = path.join(this.shotsDir, `${name}.png`);
		await this.page.screenshot({ path: file });
		return file;
	}

	/** A screenshot the documentation shows: also written to docs/images on the documented line. */
	async docsScreenshot(name: string): Promise<string> {
		const file = await this.screenshot(name);
		if (this.docsImagesDir) copyFileSync(file, path.join(this.docsImagesDir, `${name}.png`));
		return file;
	}

	/** The visible text of an element, whitespace collapsed (for comparing with our texts). */
	async textOf(locator: Locator): Promise<string> {
		return (await locator.innerText()).replace(/\s+/g, ' ').trim();
	}

	async signIn(email: string, password: string): Promise<void> {
		await this.page.goto(`${this.baseUrl}/signin`, { timeout: 60_000 });
		await this.page.fill('input[name=emailOrLdapLoginId]', email);
		await this.page.fill('input[name=password]', password);
		await this.testId('form-submit-button').click();
		await this.page.waitForURL((url) => !url.pathname.includes('signin'));
	}

	/** A new workflow with the node panel open. */
	async openNodePanel(): Promise<void> {
		await this.page.goto(`${this.baseUrl}/workflow/new`);
		await this.testId('canvas-plus-button').click();
	}

	/** Types into the node panel's search, as a user looking for a node does. */
	async searchNodePanel(search: string): Promise<void> {
		await this.page
			.locator(
				'[data-test-id="node-creator-search-bar"] input, input[data-test-id="node-creator-search-bar"]',
			)
			.fill(search);
	}

	/** A new workflow, with the node panel searched for `search` and the node `nodeName` opened in it. */
	async openNodeInCreator(search: string, nodeName: string): Promise<void> {
		await this.openNodePanel();
		await this.searchNodePanel(search);
		await this.creatorItem(nodeName).click();
	}

	creatorItem(name: string) {
		return this.page.locator(`[data-test-id="node-creator-item-name"]`, {
			hasText: new RegExp(`^\\s*${escapeRegExp(name)}\\s*$`),
		});
	}

	/** The names listed in the node panel right now. */
	async creatorItemNames(): Promise<string[]> {
		return (await this.testId('node-creator-item-name').allTextContents()).map((text) =>
			text.trim(),
		);
	}

	/**
	 * A new workflow, then the ⋯ menu next to its name imports `file` as a user does: n8n 2.x
	 * "Import" > "From file", n8n 1.x "Import from File...", and the file chooser.
	 */
	async importFromFile(file: string): Promise<void> {
		await this.page.goto(`${this.baseUrl}/workflow/new`);
		await this.testId('canvas-plus-button').first().waitFor();
		await this.testId('workflow-menu').first().click();
		const item = (name: string) => this.page.getByText(name, { exact: true }).first();
		// the menu opens with either line's words: wait for them before telling the lines apart
		await item('Import from File...').or(item('Import')).first().waitFor();
		const chooser = this.page.waitForEvent('filechooser');
		chooser.catch(() => undefined); // awaited below; a failed click fails the check instead
		if (await item('Import from File...').isVisible()) {
			await item('Import from File...').click(); // n8n 1.x
		} else {
			await item('Import').hover(); // n8n 2.x
			await item('From file').click();
		}
		await (await chooser).setFiles(file);
	}

	/** Closes the open node's panel (its back or close button; Escape where it has none). */
	async closeNodePanel(): Promise<void> {
		const panel = this.testId('ndv');
		const close = this.testId('back-to-canvas').or(this.testId('ndv-close-button')).first();
		for (let attempt = 1; attempt <= 3 && (await panel.isVisible()); attempt++) {
			if (await close.isVisible()) await close.click();
			else await this.page.keyboard.press('Escape');
			await panel.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
		}
		await panel.waitFor({ state: 'hidden', timeout: 5_000 });
	}

	/** The canvas node named `name`. */
	canvasNode(name: string): Locator {
		return this.page.locator('[data-test-id="canvas-node"]', { hasText: name }).first();
	}

	/** Opens the dropdown of a parameter and returns its options (names, without descriptions). */
	async optionsOf(parameter: string): Promise<string[]> {
		const options = await this.openDropdown(this.testId(`parameter-input-${parameter}`));
		const names = await options.evaluateAll((items) =>
			(items as unknown as PageElement[]).map((item) =>
				(
					item.querySelector('span, .option-headline')?.textContent ??
					item.textContent ??
					''
				).trim(),
			),
		);
		await this.page.keyboard.press('Escape');
		return names;
	}

	/** Chooses a credential by name in the open node's Credential dropdown. */
	async chooseCredential(name: string): Promise<void> {
		const options = await this.openDropdown(this.testId('node-credentials-select'));
		await options.filter({ hasText: name }).first().click();
	}

	/**
	 * Opens the dropdown `trigger` holds and returns its options, found through the listbox its
	 * combobox controls (aria-controls): another dropdown still fading out (the credential's,
	 * just after a choice) is never read in its place.
	 */
	private async openDropdown(trigger: Locator): Promise<Locator> {
		await trigger.click();
		const listbox = await trigger
			.locator('[role="combobox"]')
			.first()
			.getAttribute('aria-controls');
		if (!listbox) throw new Error('the dropdown clicked has no combobox naming its listbox');
		const options = this.page.locator(`[id="${listbox}"] [role="option"]`);
		await options.first().waitFor();
		return options;
	}

	/**
	 * The Lead Fields resource mapper as shown: each field's label and whether it is marked
	 * required (n8n gives required fields no remove button and flags them while empty).
	 */
	async mapperFields(): Promise<Array<{ id: string; label: string; required: boolean }>> {
		const container = this.testId('mapping-fields-container');
		await container.waitFor();
		return await container.evaluate((element) => {
			const root = element as unknown as PageElement;
			const fields: Array<{ id: string; label: string; required: boolean }> = [];
			for (const label of Array.from(root.querySelectorAll('label[for^="value["]'))) {
				const id = /value\["(.+)"\]/.exec(label.getAttribute('for') ?? '')?.[1] ?? '';
				const item = label.closest('.parameter-item');
				const removable = root.querySelector(`[data-test-id="remove-field-button-${id}"]`) !== null;
				const flagged = item?.querySelector('[data-test-id="parameter-issues"]') !== null;
				// the label's first text span is its title; the rest are the Fixed/Expression switch
				const title = label.querySelector('span')?.textContent ?? label.textContent ?? '';
				fields.push({ id, label: title.trim(), required: !removable && flagged });
			}
			return fields;
		});
	}

	/** The mapper's menu > Refresh Field List, then waits for `label` to appear (bounded). */
	async refreshFieldList(expectLabel: string): Promise<void> {
		await this.page
			.locator('[data-test-id="mapping-fields-container"] [data-test-id="action-toggle"]')
			.first()
			.click();
		await this.testId('action-refreshFieldList').click();
		await this.page
			.locator(`[data-test-id="mapping-fields-container"] label`, { hasText: expectLabel })
			.first()
			.waitFor();
	}
}

/** The few DOM members used inside the page (the project compiles without the DOM library). */
interface PageElement {
	textContent: string | null;
	getAttribute(name: string): string | null;
	closest(selector: string): PageElement | null;
	querySelector(selector: string): PageElement | null;
	querySelectorAll(selector: string): ArrayLike<PageElement>;
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
