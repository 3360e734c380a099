import { markdownToHtml, markdownToMrkdwn, markdownToPlainText } from '@hookwise/kit/platform';

describe('markdownToPlainText', () => {
  it('drops markup and keeps words, link targets and code', () => {
    const md = '# Build failed\n\n**3 tests** failed in _core_, see [the log](https://ci.example/1).\n\n* one\n* `two`\n\n```sh\nnpm test\n```\n\n> quoted';
    expect(markdownToPlainText(md)).toBe('Build failed\n\n3 tests failed in core, see the log (https://ci.example/1).\n\n- one\n- two\n\nnpm test\n\nquoted');
  });

  it('leaves snake_case and arithmetic alone', () => {
    expect(markdownToPlainText('set max_body_bytes to 2*3*4')).toBe('set max_body_bytes to 2*3*4');
  });
});

describe('markdownToHtml', () => {
  it('renders the common constructs and escapes everything else', () => {
    const html = markdownToHtml(
      '## Result\n\n**ok** <script>x</script> and `a<b`\n\n- one\n- [two](https://x.example/?a=1&b=2)\n\n```ts\nconst a = 1 < 2;\n\nfoo();\n```',
    );
    expect(html).toBe(
      '<h2>Result</h2>\n' +
        '<p><strong>ok</strong> &lt;script&gt;x&lt;/script&gt; and <code>a&lt;b</code></p>\n' +
        '<ul><li>one</li><li><a href="https://x.example/?a=1&amp;b=2">two</a></li></ul>\n' +
        '<pre><code class="language-ts">const a = 1 &lt; 2;\n\nfoo();</code></pre>',
    );
  });

  it('does not turn javascript: links into anchors', () => {
    expect(markdownToHtml('[x](javascript:alert(1))')).not.toContain('<a');
  });
});

describe('markdownToMrkdwn', () => {
  // Slack's formatting page (https://docs.slack.dev/messaging/formatting-message-text): escape &, < and >;
  // *bold*, _italic_, ~strike~, <url|text>, ``` blocks.
  it('escapes the control characters everywhere, code included, so that no mention or link can be forged', () => {
    expect(markdownToMrkdwn('<!channel> <@U123|bob> <https://x|click> a&b `<b>`')).toBe(
      '&lt;!channel&gt; &lt;@U123|bob&gt; &lt;https://x|click&gt; a&amp;b `&lt;b&gt;`',
    );
  });

  it('converts emphasis, links, headings, bullets and fences', () => {
    expect(
      markdownToMrkdwn('## Result\n**ok** and *fine* and _also_ ~~gone~~\n* [docs](https://d.example/a_b_c) <https://e.example>\n\n```js\nx();\n```'),
    ).toBe('*Result*\n*ok* and _fine_ and _also_ ~gone~\n• <https://d.example/a_b_c|docs> <https://e.example>\n\n```\nx();\n```');
  });

  it('keeps snake_case, arithmetic and unsafe links as text', () => {
    expect(markdownToMrkdwn('max_body_bytes = 2*3*4; [x](javascript:alert(1))')).toBe('max_body_bytes = 2*3*4; [x](javascript:alert(1))');
  });
});

describe('inline conversion edge cases', () => {
  it('does not read underscores inside a link URL as emphasis', () => {
    expect(markdownToHtml('see [log](https://ci.example/a_b_c)')).toBe('<p>see <a href="https://ci.example/a_b_c">log</a></p>');
  });

  it('leaves unclosed markers as written', () => {
    expect(markdownToPlainText('**a [b `c ~~d <http://e')).toBe('**a [b `c ~~d <http://e');
    expect(markdownToHtml('**a [b `c ~~d')).toBe('<p>**a [b `c ~~d</p>');
  });

  it('treats an unclosed fence as code to the end', () => {
    expect(markdownToHtml('text\n\n```sh\nrm -rf <x>\n')).toBe('<p>text</p>\n<pre><code class="language-sh">rm -rf &lt;x&gt;\n</code></pre>');
  });
});
