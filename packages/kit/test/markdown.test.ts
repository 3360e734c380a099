import { markdownToHtml, markdownToPlainText } from '@hookwise/kit';

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
    const html = markdownToHtml('## Result\n\n**ok** <script>x</script> and `a<b`\n\n- one\n- [two](https://x.example/?a=1&b=2)\n\n```ts\nconst a = 1 < 2;\n\nfoo();\n```');
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
