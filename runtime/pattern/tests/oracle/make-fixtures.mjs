// Builds ../fixtures/ecma-oracle.json: what a real ECMA-262 engine (node's
// V8) says about every distinct `smithy.api#pattern` of the AWS models, for a
// corpus of probe strings plus strings generated to match each pattern.
// The Rust test `tests/oracle.rs` replays the fixture, so CI needs no node.
//
//   node tests/oracle/make-fixtures.mjs [MODELS_DIR]
//
// MODELS_DIR defaults to $STRATUS_AWS_MODELS_DIR, then to
// ../../../shared/aws-models relative to the crate. Plain node (v20), no
// packages.
//
// How a pattern is evaluated (the fixture records it as `mode`):
// - "ecma": `new RegExp(p)` (non-unicode mode) for probes within the Basic
//   Multilingual Plane. Probes with supplementary characters are evaluated
//   with the `u` flag (on the pattern respelled in u-mode syntax), because AWS
//   runs patterns with Java, which matches code points, as Rust does; both
//   modes are checked to agree on every BMP probe.
// - "ecma-u": the `u` flag for all probes: patterns using `\p{…}` (a Java-ism
//   that non-unicode ECMA would read as a literal `p{…}`) and patterns that
//   non-unicode mode rejects but unicode mode reads as Java does (surrogate
//   pair escapes in classes).
// - "java": patterns no ECMA mode accepts; evaluated through an equivalent
//   written by hand below, with Java's meaning.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const crateDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const modelsDir =
  process.argv[2] ?? process.env.STRATUS_AWS_MODELS_DIR ?? path.join(crateDir, '../../../shared/aws-models');
const outFile = path.join(crateDir, 'tests/fixtures/ecma-oracle.json');

// Patterns that unicode-mode ECMA-262 rejects (non-unicode mode may accept
// them with another meaning: `\p{Print}` as the text "p{Print}"), with an
// equivalent spelling of Java's meaning (evaluated with the `u` flag).
const JAVA_MEANING = {
  // POSIX classes are US-ASCII in java.util.regex: \p{Print} = [\x20-\x7E].
  '^\\p{Print}+$': '^[\\x20-\\x7E]+$',
  // (?i) switches on ASCII case-insensitivity up to the end of the group
  // (here the whole pattern, both alternatives).
  '^(?i)all|[0-9]{12}$': '^[aA][lL][lL]|[0-9]{12}$',
};

// Accepting strings for patterns the generator below cannot satisfy.
const HAND_ACCEPT = {
  '^([\\-]?\\d{4}(?!\\d{2}\\b))((-?)((0[1-9]|1[0-2])(\\3([12]\\d|0[1-9]|3[01]))?|W([0-4]\\d|5[0-2])(-?[1-7])?|(00[1-9]|0[1-9]\\d|[12]\\d{2}|3([0-5]\\d|6[1-6])))([T\\s]((([01]\\d|2[0-3])((:?)[0-5]\\d)?|24\\:?00)([\\.,]\\d(?!:))?)?(\\17[0-5]\\d([\\.,]\\d)?)?([zZ]|([\\-])([01]\\d|2[0-3]):?([0-5]\\d)?)?)?)?$':
    ['2024-02-29T12:30:45Z', '20240229T123045', '2024-W05-3', '2024-060', '2024-02-29T24:00', '2024-02-29T2400', '2024'],
};

// Patterns and anchorings under which every string matches: no rejecting
// probe can exist. The script checks that no probe is rejected there.
const UNIVERSAL = {
  '^[\\s\\S]*$': ['search', 'full'],
  '.*': ['search'],
  '^(arn:(aws[a-zA-Z-]*)?:[a-z0-9-.]+:.*)|()$': ['search'],
};

// Probes evaluated against every pattern. `{repeat, times}` stands for a
// long string.
const CORPUS = [
  '', 'a', 'A', 'z', '0', '9', '_', '-', '.', '/', ':', '*', '$', '%', '@', '\\', '"', "'",
  'abc', 'ABC', 'Abc123', 'hello world', 'hello_world', 'foo-bar', 'foo.bar', 'foo--bar', '-foo', 'foo-', 'foo.',
  'a.b.c', 'a/b/c', '/path/to/thing', 'key=value', 'a+b=c,d.e@f-g', 'a b\tc',
  ' ', '  ', '\t', '\n', '\r', '\r\n', '\v', '\f', 'a\nb', 'line\n', '\nline', ' leading', 'trailing ',
  '\u00a0', '\ufeff', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\u0085', '\u200b',
  '\u0000', '\u0001', '\u0008', '\u001f', '\u007f', '\u0080', '\u009f', '\u00a1', '\u00ff', '\u0100',
  '\ud7ff', '\ue000', '\ufffd', '\uffff',
  'é', 'Ünïcödé', 'straße', 'Ωmega', '日本語', 'Ǆ', 'ǅ', 'ⅷ', '٣', '𝐀', '😀', 'a😀b', '😀😀😀', '\u{10ffff}', '\u{10000}',
  '12', '123', '12345', '123456', '123456789012', '1234567890123', '000000000000', '0123', '007', '1.5', '-1.5', '+12.34',
  '1e10', '100', '100%', '50%', '1440', '1441', '255', '256',
  'arn:aws:iam::123456789012:role/MyRole', 'arn:aws:iam::123456789012:root', 'arn:aws:s3:::my-bucket',
  'arn:aws-cn:lambda:cn-north-1:123456789012:function:my-func', 'arn:aws:lambda:us-east-1:123456789012:function:f:$LATEST',
  'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  'arn:aws:events:us-east-1:123456789012:event-bus/default', 'arn:aws:sqs:us-east-1:123456789012:queue',
  'arn:aws:secretsmanager:us-east-1:123456789012:secret:my-secret-AbCdEf', 'arn:', 'arn:aws', 'ARN:AWS:IAM',
  'us-east-1', 'eu-west-2', 'us-gov-west-1', 'ou-abcd-12345678', 'r-abcd', 'o-abcdefghij',
  '12345678-1234-1234-1234-123456789abc', '12345678-1234-1234-1234-123456789ABC', 'd41d8cd98f00b204e9800998ecf8427e',
  '$LATEST', '$DEFAULT', 'LATEST', 'all', 'ALL', 'All', 'aLl', 'aws:tag', 'aws.events', 'AWS:x', 'system.x', 'Custom:x',
  'https://example.com', 'http://example.com/path?q=1#frag', 'https://', 'https:', 's3://bucket/key/file.txt', 's3://',
  'user@example.com', 'jdbc:redshift://a.b.redshift.amazonaws.com:5439/db', 'lambda:GetLayerVersion', 'events:aws',
  'tag:Name', 'Name', 'p99', 'p99.9', 'TM(10%:90%)', 'IQM', 'Average',
  '2020-01-01T12:00:00Z', '2024-02-29', '2024-W05', '20240229T1230', '1.2.3', 'v1.0', 'v0',
  '192.168.0.1', '256.1.1.1', '::1', 'fe80::1%eth0', '2001:db8::1', 'example.com', '*.example.com', 'a-.example.com',
  'Zm9vYmFy', 'Zm9vYg==', 'Zm9vYmE=', 'Zm9v=', 'abc%41', '%zz', '<tag>', '{}', '[]', '()', '|', '^', '!', '#', '~', '`',
  '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
  'a-b.example.com', '-a.example.com', 'a.-b.com', 'a-.b.com', 'my-alias', 'my--alias', '-alias', 'alias-',
  'jdbc:redshift://my-cluster.abc123.us-east-1.redshift.amazonaws.com:5439/dev',
  'jdbc:redshift://-bad.redshift.amazonaws.com:5439/dev', 'jdbc:redshift://bad-.redshift.amazonaws.com:5439/dev',
  'system.profile', 'my.bucket', 'my.bucket.', '$.detail.items[0]', '$.a[*]', 'aws.partner/x/y', '123abc', 'abc123',
  'a'.repeat(16), 'a'.repeat(64), 'a'.repeat(129), 'a'.repeat(257), '1'.repeat(40),
  { repeat: 'a', times: 2001 },
  { repeat: 'x', times: 100000 },
  { repeat: 'x', times: 100001 },
];

function corpusString(probe) {
  return typeof probe === 'string' ? probe : probe.repeat.repeat(probe.times);
}

// --- collecting the patterns -------------------------------------------

function modelPatterns(dir) {
  const patterns = new Set();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const model = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    for (const shape of Object.values(model.shapes ?? {})) {
      for (const traits of [shape.traits, ...Object.values(shape.members ?? {}).map((m) => m.traits)]) {
        const pattern = traits?.['smithy.api#pattern'];
        if (pattern !== undefined) patterns.add(pattern);
      }
    }
  }
  return [...patterns].sort();
}

// --- u-mode respelling ---------------------------------------------------

const SYNTAX = '^$\\.*+?()[]{}|/';
const CLASS_ESCAPE = /^\\[dDsSwW]$|^\\[pP]\{/;

// The escape starting at p[i] (a backslash), as one token.
function escapeToken(p, i) {
  const d = p[i + 1];
  if (d === 'u' && /^[0-9A-Fa-f]{4}$/.test(p.slice(i + 2, i + 6))) return p.slice(i, i + 6);
  if (d === 'x' && /^[0-9A-Fa-f]{2}$/.test(p.slice(i + 2, i + 4))) return p.slice(i, i + 4);
  if (d === 'c') return p.slice(i, i + 3);
  if ((d === 'p' || d === 'P') && p[i + 2] === '{') return p.slice(i, p.indexOf('}', i) + 1);
  if (/[1-9]/.test(d)) return p.slice(i).match(/^\\[0-9]+/)[0];
  return p.slice(i, i + 2);
}

// An identity escape of a character that u-mode does not let be escaped
// becomes the bare character.
function unicodeEscape(token, inClass) {
  if (token.length !== 2 || /[A-Za-z0-9]/.test(token[1]) || SYNTAX.includes(token[1])) return token;
  return token[1] === '-' && inClass ? token : token[1];
}

// Respells a non-unicode-mode pattern in u-mode syntax with the same meaning.
function toUnicodeSyntax(p) {
  let out = '';
  for (let i = 0; i < p.length; ) {
    const c = p[i];
    if (c === '[') {
      let j = i + 1;
      const tokens = [];
      if (p[j] === '^') tokens.push(p[j++]);
      while (p[j] !== ']') {
        const token = p[j] === '\\' ? escapeToken(p, j) : p[j];
        tokens.push(token);
        j += token.length;
      }
      out += '[' + tokens
        .map((token, k) => {
          const nextToClassEscape = CLASS_ESCAPE.test(tokens[k - 1] ?? '') || CLASS_ESCAPE.test(tokens[k + 1] ?? '');
          if (token === '-' && nextToClassEscape) return '\\-';
          return token.startsWith('\\') ? unicodeEscape(token, true) : token;
        })
        .join('') + ']';
      i = j + 1;
    } else if (c === '\\') {
      const token = escapeToken(p, i);
      out += unicodeEscape(token, false);
      i += token.length;
    } else if (c === '{') {
      const quantifier = p.slice(i).match(/^\{[0-9]+(,[0-9]*)?\}/);
      out += quantifier ? quantifier[0] : '\\{';
      i += quantifier ? quantifier[0].length : 1;
    } else {
      out += c === '}' || c === ']' ? '\\' + c : c;
      i += 1;
    }
  }
  return out;
}

// --- oracle ---------------------------------------------------------------

function compile(source, flags) {
  try {
    return new RegExp(source, flags);
  } catch {
    return null;
  }
}

function fullMatch(source, flags) {
  return new RegExp(`^(?:${source})$`, flags);
}

const isAstral = (s) => /[\u{10000}-\u{10FFFF}]/u.test(s);

function makeOracle(pattern) {
  const java = JAVA_MEANING[pattern];
  if (java !== undefined) {
    if (compile(pattern, 'u')) throw new Error(`${pattern}: unicode-mode ECMA accepts it, drop it from JAVA_MEANING`);
    return { mode: 'java', source: java, flags: 'u', ...evaluators(null, java) };
  }
  const usesProperty = /(^|[^\\])(\\\\)*\\[pP]\{/.test(pattern);
  const nonUnicode = usesProperty ? null : compile(pattern, '');
  const uSource = compile(pattern, 'u') ? pattern : toUnicodeSyntax(pattern);
  if (!compile(uSource, 'u')) throw new Error(`${pattern}: no u-mode spelling (${uSource}); add it to JAVA_MEANING`);
  if (nonUnicode) return { mode: 'ecma', source: pattern, flags: '', ...evaluators(pattern, uSource) };
  return { mode: 'ecma-u', source: uSource, flags: 'u', ...evaluators(null, uSource) };
}

// Evaluation of probes: non-unicode mode where given and the probe is in the
// BMP, unicode mode otherwise; both must agree on BMP probes.
function evaluators(nonUnicode, unicode) {
  const u = { search: new RegExp(unicode, 'u'), full: fullMatch(unicode, 'u') };
  const n = nonUnicode === null ? null : { search: new RegExp(nonUnicode), full: fullMatch(nonUnicode, '') };
  const run = (which, s) => {
    const viaU = u[which].test(s);
    if (n && !isAstral(s)) {
      const viaN = n[which].test(s);
      if (viaN !== viaU) throw new Error(`${nonUnicode} vs ${unicode}: modes disagree on ${JSON.stringify(s)}`);
      return viaN;
    }
    return viaU;
  };
  return { search: (s) => run('search', s), full: (s) => run('full', s) };
}

// --- generating accepting strings ------------------------------------------

const POOL = [
  ...Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)),
  'é', 'ß', 'Ω', '日', 'ÿ', '\u0100', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u0085', '😀', '𝐀',
];
const PREFERRED = /^[A-Za-z0-9]$/;

// Parses a u-mode or non-u-mode pattern into groups, alternatives,
// quantifiers and atoms (kept as source text). Assertions, look-arounds and
// back-references generate nothing; the oracle filters what does not match.
function parseForGeneration(src) {
  let i = 0;
  const disjunction = () => {
    const alts = [sequence()];
    while (src[i] === '|') {
      i += 1;
      alts.push(sequence());
    }
    return { t: 'alt', alts };
  };
  const sequence = () => {
    const items = [];
    while (i < src.length && src[i] !== '|' && src[i] !== ')') {
      const node = atom();
      const q = src.slice(i).match(/^(?:\*|\+|\?|\{([0-9]+)(,([0-9]*))?\})\??/);
      if (q && node.t !== 'flags') {
        i += q[0].length;
        const [min, max] = q[0][0] === '*' ? [0, Infinity] : q[0][0] === '+' ? [1, Infinity] : q[0][0] === '?' ? [0, 1]
          : [Number(q[1]), q[2] === undefined ? Number(q[1]) : q[3] === '' ? Infinity : Number(q[3])];
        items.push({ t: 'rep', node, min, max });
      } else {
        items.push(node);
      }
    }
    return { t: 'seq', items };
  };
  const atom = () => {
    const c = src[i];
    if (c === '(') {
      i += 1;
      let look = false;
      if (src[i] === '?') {
        const m = src.slice(i).match(/^\?(:|<?[=!]|<[^>]*>|i\)|i:)/);
        i += m[0].length;
        if (m[1] === 'i)') return { t: 'flags' };
        look = /[=!]/.test(m[1]);
      }
      const body = disjunction();
      i += 1;
      return look ? { t: 'empty' } : body;
    }
    if (c === '[') {
      let j = i + 1;
      if (src[j] === '^') j += 1;
      while (src[j] !== ']') j += src[j] === '\\' ? escapeToken(src, j).length : 1;
      const text = src.slice(i, j + 1);
      i = j + 1;
      return { t: 'atom', src: text };
    }
    if (c === '\\') {
      const token = escapeToken(src, i);
      i += token.length;
      return /^\\([bB]|[1-9])/.test(token) ? { t: 'empty' } : { t: 'atom', src: token };
    }
    i += 1;
    if (c === '^' || c === '$') return { t: 'empty' };
    return { t: 'atom', src: SYNTAX.includes(c) && c !== '.' ? '\\' + c : c };
  };
  return disjunction();
}

function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generator(source, flags, seed) {
  const tree = parseForGeneration(source);
  const random = mulberry32(seed);
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  const pools = new Map();
  const pool = (atomSource) => {
    if (!pools.has(atomSource)) {
      const re = fullMatch(atomSource, flags);
      const all = POOL.filter((ch) => re.test(ch));
      const preferred = all.filter((ch) => PREFERRED.test(ch));
      pools.set(atomSource, { all, preferred });
    }
    return pools.get(atomSource);
  };
  const gen = (node) => {
    switch (node.t) {
      case 'alt':
        return gen(pick(node.alts));
      case 'seq':
        return node.items.map(gen).join('');
      case 'rep': {
        const top = Math.min(node.max, node.min + 3);
        const n = node.min + Math.floor(random() * (top - node.min + 1));
        return Array.from({ length: n }, () => gen(node.node)).join('');
      }
      case 'atom': {
        const { all, preferred } = pool(node.src);
        return pick(preferred.length > 0 && random() < 0.7 ? preferred : all) ?? '';
      }
      default:
        return '';
    }
  };
  return () => gen(tree);
}

function hash(s) {
  let h = 2166136261;
  for (const ch of s) h = Math.imul(h ^ ch.codePointAt(0), 16777619);
  return h >>> 0;
}

function acceptingStrings(pattern, oracle) {
  const found = new Set((HAND_ACCEPT[pattern] ?? []).filter((s) => oracle.full(s)));
  const next = generator(oracle.source, oracle.flags, hash(pattern));
  for (let attempt = 0; attempt < 400 && found.size < 3; attempt += 1) {
    const s = next();
    if (s.isWellFormed() && oracle.full(s)) found.add(s);
  }
  return [...found].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
}

// Near misses of an accepting string.
function mutations(s) {
  const chars = Array.from(s);
  return [
    chars.slice(0, -1).join(''), chars.slice(1).join(''), s + '!', ' ' + s, s + '\n', s + 'é', s + '😀',
    s.toUpperCase(), s.toLowerCase(), s + s, chars.map((ch) => (ch === '-' ? '--' : ch)).join(''),
  ];
}

// --- main -----------------------------------------------------------------

const patterns = modelPatterns(modelsDir);
const corpus = CORPUS.map(corpusString);
const entries = [];
for (const pattern of patterns) {
  const oracle = makeOracle(pattern);
  const accepted = acceptingStrings(pattern, oracle);
  if (accepted.length === 0) throw new Error(`${pattern}: no accepting string; add one to HAND_ACCEPT`);
  const extra = new Set([...accepted, ...accepted.slice(0, 2).flatMap(mutations)]);
  for (const s of corpus) extra.delete(s);
  const probes = [...extra].filter((s) => s.isWellFormed()).map((s) => [s, oracle.search(s), oracle.full(s)]);
  const corpusResults = corpus.map((s) => String(Number(oracle.search(s)) + 2 * Number(oracle.full(s)))).join('');

  const results = [...probes.map(([, search, full]) => [search, full]), ...[...corpusResults].map((d) => [d & 1, d & 2])];
  const universal = UNIVERSAL[pattern] ?? [];
  for (const [k, which] of ['search', 'full'].entries()) {
    const rejected = results.some((r) => !r[k]);
    if (!results.some((r) => r[k])) throw new Error(`${pattern}: nothing accepted under ${which}`);
    if (rejected === universal.includes(which)) {
      throw new Error(`${pattern}: ${rejected ? 'rejects a probe, drop it from' : 'no rejecting probe; add one or list it in'} UNIVERSAL (${which})`);
    }
  }
  const entry = { pattern, mode: oracle.mode };
  if (oracle.mode === 'java') entry.java = oracle.source;
  if (universal.length > 0) entry.universal = universal;
  entry.corpus = corpusResults;
  entry.probes = probes;
  entries.push(entry);
}

const header = {
  generator: 'tests/oracle/make-fixtures.mjs',
  engine: `node ${process.version}`,
  encoding: 'corpus results: one digit per corpus probe, 1 = Search matches + 2 = FullMatch matches; probes: [string, Search, FullMatch]',
};
// JSON with everything outside printable ASCII escaped, so the fixture
// shows and diffs cleanly.
const stringify = (value) =>
  JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const json = [
  '{',
  `"header": ${stringify(header)},`,
  `"corpus": ${stringify(CORPUS)},`,
  '"patterns": [',
  entries.map(stringify).join(',\n'),
  ']',
  '}',
].join('\n');
fs.writeFileSync(outFile, json + '\n');
console.log(`${entries.length} patterns, ${corpus.length} corpus probes, ${entries.reduce((n, e) => n + e.probes.length, 0)} generated probes -> ${path.relative(crateDir, outFile)} (${json.length} bytes)`);
