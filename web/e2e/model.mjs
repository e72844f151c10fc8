// model.mjs — a scripted language model for the browser tests: a local
// HTTP server speaking the OpenAI chat completions protocol
// (POST /v1/chat/completions), so `eligo serve --model-base-url` calls it
// with its real client, real headers and real timeouts, and only the
// model's answers are made up. run.sh starts it before the server and
// passes its address to the tests in ELIGO_MODEL_URL.
//
// The tests script it over the same socket:
//   POST /script    {"reply": "...", "delay_ms": 2000} or {"hang": true}:
//                   appended to the turns; each chat request takes the
//                   next one (a reply may wait delay_ms first, so its
//                   progress can be watched; a hanging turn answers nothing
//                   until the caller gives up)
//   GET  /requests  what each chat request carried: its headers and body
//
// A chat request with no turn left is answered 500, as a provider error.
// Run: node e2e/model.mjs; it prints "model serving on http://HOST:PORT".
import http from 'node:http';

const turns = [];
const requests = [];

/** readBody reads a request's body as text. */
function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** send answers with a JSON body. */
function send(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** completion is a chat.completion answer carrying content; usage counts a token per four bytes. */
function completion(request, content, n) {
  const prompt = (request.messages ?? []).reduce((sum, m) => sum + String(m.content ?? '').length, 0);
  const promptTokens = Math.floor(prompt / 4);
  const completionTokens = Math.floor(content.length / 4);
  return {
    id: `chatcmpl-e2e-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

const server = http.createServer(async (req, res) => {
  try {
    const text = await readBody(req);
    if (req.method === 'POST' && req.url === '/script') {
      turns.push(JSON.parse(text));
      send(res, 200, { turns: turns.length });
      return;
    }
    if (req.method === 'GET' && req.url === '/requests') {
      send(res, 200, requests);
      return;
    }
    if (req.method === 'POST' && (req.url === '/v1/chat/completions' || req.url === '/chat/completions')) {
      requests.push({ headers: req.headers, body: text });
      const turn = turns.shift();
      if (!turn) {
        send(res, 500, { error: { message: 'no scripted turn left', type: 'server_error', param: null, code: 'server_error' } });
        return;
      }
      if (turn.hang) {
        // Nothing is answered: the caller cancels or times out, and the
        // socket closes.
        req.socket.on('close', () => res.destroy());
        return;
      }
      const n = requests.length;
      if (turn.delay_ms) await new Promise((resolve) => setTimeout(resolve, turn.delay_ms));
      send(res, 200, completion(JSON.parse(text), turn.reply ?? '', n));
      return;
    }
    send(res, 404, { error: { message: `no such endpoint: ${req.method} ${req.url}`, type: 'invalid_request_error', param: null, code: 'not_found' } });
  } catch (err) {
    send(res, 400, { error: { message: String(err), type: 'invalid_request_error', param: null, code: 'invalid_request' } });
  }
});

server.listen(0, '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`model serving on http://${address}:${port}`);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
