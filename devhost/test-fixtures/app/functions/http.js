// A tiny function app for the local host's tests: registered exactly as the real app registers.
const { app, HttpResponse } = require('@azure/functions');

app.http('things', {
  route: 'v1/things/{id:int}',
  methods: ['GET'],
  authLevel: 'function',
  handler: async (request, context) => {
    context.info('looking at a thing');
    return {
      jsonBody: {
        id: request.params.id,
        q: request.query.get('q'),
        custom: request.headers.get('x-custom'),
        url: request.url,
        functionName: context.functionName,
        invocationId: context.invocationId,
        traceParent: context.traceContext.traceParent,
        triggerType: context.options.trigger.type,
      },
    };
  },
});

app.post('echo', {
  route: 'v1/echo',
  handler: async (request) => {
    const text = await request.text();
    return { status: 201, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: text };
  },
});

app.get('boom', { route: 'v1/boom', handler: async () => { throw new Error('kaboom'); } });

app.get('not-an-object', { route: 'v1/not-an-object', handler: async () => 'just a string' });

app.get('cookies', {
  route: 'v1/cookies',
  handler: async () =>
    new HttpResponse({
      status: 200,
      headers: { 'set-cookie': 'plain=2' },
      cookies: [{ name: 'session', value: 'a b', httpOnly: true, sameSite: 'Strict', path: '/' }],
      body: 'ok',
    }),
});

app.get('hooked', { route: 'v1/hooked', handler: async () => ({ jsonBody: { by: 'handler' } }) });

app.http('not-found', {
  route: '{*path}',
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
  handler: async (request) => ({ status: 404, jsonBody: { code: 'not_found', path: request.params.path ?? null } }),
});
