// Deterministic sample content for the bench: titles, ~500-character bodies, tags. A seeded PRNG keeps
// every run's data the same shape, so figures from two runs compare.

const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et ' +
  'dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea ' +
  'commodo consequat duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla pariatur ' +
  'excepteur sint occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est ' +
  'laborum curabitur pretium tincidunt lacus nunc pulvinar sapien ligula ornare quam varius mauris ' +
  'porta gravida vestibulum facilisis semper orci turpis egestas praesent sagittis tortor fermentum ' +
  'lectus feugiat vivamus rhoncus massa integer blandit posuere morbi tristique senectus netus fames ' +
  'habitant hendrerit dapibus viverra accumsan lacinia arcu dictum cras placerat quisque volutpat'
).split(' ');

export const TAGS = ['news', 'howto', 'review', 'opinion', 'release', 'event', 'security', 'community'];

/** The word the unindexed `~` filter looks for (about one title in twenty contains it). */
export const FILTER_WORD = 'vestibulum';

/** mulberry32: small, fast, good enough for sample text. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface PostContent {
  title: string;
  body: string;
  published: boolean;
  tags: string[];
}

function words(rand: () => number, min: number, max: number): string {
  const n = min + Math.floor(rand() * (max - min + 1));
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]);
  return out.join(' ');
}

function paragraph(rand: () => number, length: number): string {
  let text = '';
  for (let i = 0; i < 200 && text.length < length; i++) text += (text ? ' ' : '') + words(rand, 6, 12) + '.';
  return text.slice(0, length);
}

export function postContent(rand: () => number): PostContent {
  const tags = TAGS.filter(() => rand() < 0.25).slice(0, 3);
  return {
    title: words(rand, 4, 7),
    body: paragraph(rand, 480 + Math.floor(rand() * 40)),
    published: rand() < 0.7,
    tags,
  };
}
