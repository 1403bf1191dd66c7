// @ts-check
// Live updates: GET /campaigns/{id}/stream read with fetch (EventSource cannot send a bearer
// token), resumed with Last-Event-ID; where the server has no stream, the page asks for new
// events once a second instead. While the stream cannot be had (the server's streams are all
// taken: 503 with Retry-After, or the connection failed), the page asks once a second too, and
// tries the stream again after the wait the server asked for.
import { get, headers } from "./api.js";
import { parse } from "./canon.js";

export class Live {
  constructor(campaignId, version, onEvent, onMode) {
    this.id = campaignId;
    this.version = version;
    this.onEvent = onEvent;
    this.onMode = onMode;
    this.stopped = false;
    this.controller = null;
  }

  start() {
    this.stream().catch(() => this.fallback(2));
    return this;
  }

  stop() {
    this.stopped = true;
    this.controller?.abort();
    clearTimeout(this.timer);
  }

  retry() {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.start(), 2000);
  }

  async stream() {
    this.controller = new AbortController();
    const response = await fetch(`/campaigns/${this.id}/stream`, {
      headers: headers({ Accept: "text/event-stream", "Last-Event-ID": String(this.version) }),
      signal: this.controller.signal,
    });
    if (response.status === 404 || response.status === 405) {
      this.onMode("polling");
      return this.poll();
    }
    if (!response.ok || !response.body) {
      const wait = Number(response.headers.get("Retry-After"));
      return this.fallback(Number.isFinite(wait) ? Math.min(30, Math.max(2, wait)) : 2);
    }
    this.onMode("stream");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let cut;
      while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
        this.message(block);
      }
    }
    this.retry();
  }

  message(block) {
    let data = "";
    let id = null;
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(":")) continue; // keep-alive
      const [field, ...rest] = line.split(":");
      const value = rest.join(":").replace(/^ /, "");
      if (field === "data") data += (data ? "\n" : "") + value;
      else if (field === "id") id = value;
    }
    if (!data) return;
    const event = parse(data);
    this.version = Number(id ?? event.version);
    this.onEvent(event);
  }

  async poll() {
    while (!this.stopped) {
      await this.pollOnce();
      await this.tick();
    }
  }

  // Polled for `seconds` (the stream is not to be had now), then the stream tried again.
  async fallback(seconds) {
    if (this.stopped) return;
    this.onMode("polling");
    const until = Date.now() + seconds * 1000;
    while (!this.stopped && Date.now() < until) {
      await this.pollOnce();
      await this.tick();
    }
    if (!this.stopped) this.start();
  }

  async pollOnce() {
    try {
      const page = await get(`/campaigns/${this.id}/events?after=${this.version}&limit=100`);
      for (const event of page.items) {
        this.version = Number(event.version);
        this.onEvent(event);
      }
    } catch {
      // a failed poll is tried again on the next tick
    }
  }

  tick() {
    return new Promise((resolve) => {
      this.timer = setTimeout(resolve, 1000);
    });
  }
}
