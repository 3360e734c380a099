// The dashboard's only script: live updates (server-sent events, then the server-rendered fragments swapped in),
// filters without a reload, and the replay and retry buttons. Pages work without it, minus those.
/* global document, window, EventSource, URLSearchParams, history, location */
'use strict';

(function () {
  var csrfMeta = document.querySelector('meta[name="hookwise-csrf"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute('content') : '';
  var kind = document.body.getAttribute('data-page');

  /** POSTs an action with the page's CSRF token; resolves with the JSON answer or rejects with its error. */
  function post(url) {
    return fetch(url, { method: 'POST', headers: { 'x-hookwise-csrf': csrf }, credentials: 'same-origin' }).then(function (res) {
      return res
        .json()
        .catch(function () {
          return {};
        })
        .then(function (body) {
          if (!res.ok) throw new Error(body.error || 'HTTP ' + res.status);
          return body;
        });
    });
  }

  function say(text, bad) {
    var el = document.getElementById('action-result');
    if (!el) return;
    el.textContent = text;
    el.className = bad ? 'error' : 'ok';
  }

  function live(state) {
    var el = document.getElementById('live');
    if (!el) return;
    el.textContent = state;
    el.setAttribute('data-state', state);
  }

  /** Replaces an element's content with a fragment the server rendered (and escaped). */
  function swap(id, url) {
    var el = document.getElementById(id);
    if (!el) return Promise.resolve();
    return fetch(url, { credentials: 'same-origin' })
      .then(function (res) {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.text();
      })
      .then(function (html) {
        el.innerHTML = html;
      });
  }

  /**
   * Subscribes to the gateway's change stream; EventSource reconnects by itself after a restart. Changes made
   * between the page's rendering and the stream's (re)opening are not sent, so each opening counts as one.
   */
  function connect(onChange) {
    var source = new EventSource('/api/stream');
    source.addEventListener('open', function () {
      live('live');
      onChange({ events: {}, jobs: null });
    });
    source.addEventListener('error', function () {
      live('reconnecting');
    });
    source.addEventListener('changes', function (e) {
      var message;
      try {
        message = JSON.parse(e.data);
      } catch (err) {
        return;
      }
      onChange(message);
    });
    window.addEventListener('pagehide', function () {
      source.close();
    });
  }

  if (kind === 'list') {
    var form = document.getElementById('filters');
    var query = function () {
      var params = new URLSearchParams();
      for (var i = 0; i < form.elements.length; i += 1) {
        var field = form.elements[i];
        if (field.name && field.value) params.set(field.name, field.value);
      }
      return params.toString();
    };
    // The panels (stats, usage, refused requests) are of the profile chosen, as the event rows are: without it they
    // would count every profile's jobs beside one profile's rows.
    var scope = function () {
      var profile = form.elements.namedItem('profile');
      return profile && profile.value ? '?profile=' + encodeURIComponent(profile.value) : '';
    };
    var USAGE_EVERY_MS = 5000;
    var usageReadAt = 0;
    var usageLater = 0;
    // One refresh at a time; changes that arrive meanwhile ask for one more.
    var busy = false;
    var again = false;
    var refresh = function () {
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      var q = query();
      var fragments = [
        swap('event-rows', '/ui/fragments/events?' + q),
        swap('stats', '/ui/fragments/stats' + scope()),
        swap('request-rows', '/ui/fragments/requests' + scope()),
      ];
      // The usage panel sums up to a day of stored jobs: re-read at most every few seconds, and once more after a burst.
      var now = Date.now();
      if (now - usageReadAt >= USAGE_EVERY_MS) {
        usageReadAt = now;
        fragments.push(swap('usage-rows', '/ui/fragments/usage' + scope()));
      } else if (!usageLater) {
        usageLater = window.setTimeout(
          function () {
            usageLater = 0;
            usageReadAt = Date.now();
            swap('usage-rows', '/ui/fragments/usage' + scope()).catch(function () {});
          },
          USAGE_EVERY_MS - (now - usageReadAt),
        );
      }
      Promise.all(fragments)
        .catch(function () {
          live('offline');
        })
        .then(function () {
          busy = false;
          if (again) {
            again = false;
            window.setTimeout(refresh, 250);
          }
        });
    };
    var apply = function () {
      history.replaceState(null, '', '/ui' + (query() ? '?' + query() : ''));
      refresh();
    };
    form.addEventListener('change', apply);
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      apply();
    });
    var retryDead = document.getElementById('retry-dead');
    if (retryDead) {
      retryDead.addEventListener('click', function () {
        var route = retryDead.getAttribute('data-route');
        // Only the dead letters the page lists: the chosen profile's, not every profile's of the same route name.
        var params = new URLSearchParams(scope());
        if (route) params.set('route', route);
        post('/api/dead-letters/retry' + (params.toString() ? '?' + params.toString() : '')).then(
          function (body) {
            say(body.retried.length ? 'Put ' + body.retried.length + ' dead letter(s) back in the queue.' : 'No dead letters to retry.');
            refresh();
          },
          function (err) {
            say(err.message, true);
          },
        );
      });
    }
    // Webhook deliveries to MCP subscribers come after the event that caused them, and expiries with no event at
    // all: the panel is read on its own clock rather than on the change stream.
    if (document.getElementById('mcp-events')) {
      window.setInterval(function () {
        swap('mcp-events', '/ui/fragments/mcp').catch(function () {});
      }, 5000);
    }
    connect(refresh);
  }

  // Approvals (issue 31): each held answer's Approve / Deny; the page is drawn again with what is still held.
  if (kind === 'approvals') {
    document.addEventListener('click', function (event) {
      var button = event.target;
      var jobId = button && button.getAttribute && button.getAttribute('data-approval');
      if (!jobId) return;
      button.disabled = true;
      post('/api/approvals/' + encodeURIComponent(jobId) + '/' + button.getAttribute('data-decision')).then(
        function () {
          location.reload();
        },
        function (err) {
          button.disabled = false;
          say(err.message, true);
        },
      );
    });
  }

  if (kind === 'detail') {
    var heading = document.getElementById('delivery');
    var jobId = heading.getAttribute('data-job-id');
    var replay = document.getElementById('replay');
    replay.addEventListener('click', function () {
      replay.disabled = true;
      post('/api/deliveries/' + encodeURIComponent(jobId) + '/replay').then(
        function (body) {
          location.assign('/ui/deliveries/' + encodeURIComponent(body.delivery.deliveryId));
        },
        function (err) {
          replay.disabled = false;
          say(err.message, true);
        },
      );
    });
    var retry = document.getElementById('retry');
    if (retry) {
      retry.addEventListener('click', function () {
        retry.disabled = true;
        post('/api/deliveries/' + encodeURIComponent(jobId) + '/retry').then(
          function () {
            location.reload();
          },
          function (err) {
            retry.disabled = false;
            say(err.message, true);
          },
        );
      });
    }
    // A job still on its way: the page follows it until it is done.
    if (heading.getAttribute('data-status') !== 'done') {
      var reloading = false;
      var reload = function () {
        if (reloading) return;
        reloading = true;
        window.setTimeout(function () {
          location.reload();
        }, 200);
      };
      connect(function (message) {
        if (message.jobs === null) {
          // The stream (re)opened: reload only if the job changed since the page was rendered.
          fetch('/api/deliveries/' + encodeURIComponent(jobId), { credentials: 'same-origin' })
            .then(function (res) {
              return res.ok ? res.json() : null;
            })
            .then(
              function (body) {
                if (body && String(body.delivery.updatedAt) !== heading.getAttribute('data-updated')) reload();
              },
              function () {},
            );
        } else if (message.jobs.indexOf(jobId) !== -1) {
          reload();
        }
      });
    }
  }
})();
