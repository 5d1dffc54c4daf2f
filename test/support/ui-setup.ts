// The ui project's setup: how long `findBy…`/`waitFor` wait for the page to show something. Testing
// Library's default (1 s) counts the first import of a lazily loaded page, which Vitest transforms on
// demand: with another test file busy on the second core that first import alone passed 1 s in CI
// (test/ui/desktop.test.tsx's first test). A wait ends as soon as what it waits for shows, so passing
// tests take no longer; a page that never shows still fails.
import { configure } from '@solidjs/testing-library';

configure({ asyncUtilTimeout: 10_000 });
