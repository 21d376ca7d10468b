import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../src/markdown.js";

describe("renderMarkdown", () => {
  it("shows raw HTML as text, but for a bare <br> (the change plan's table cells)", () => {
    const html = renderMarkdown(
      "| a | b |\n| --- | --- |\n| one<br>two | <script>alert(1)</script> <img src=x onerror=alert(1)> |\n",
    );
    expect(html).toContain("<td>one<br>two</td>");
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(renderMarkdown("x <br onclick=alert(1)> y")).not.toContain("<br onclick");
  });
});
