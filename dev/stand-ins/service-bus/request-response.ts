import type { Message, Receiver } from "rhea";
import type { ConnectionScope } from "./connection-scope";

export interface Reply {
  application_properties: Record<string, unknown>;
  body?: unknown;
}

/**
 * Serves a request node (`$cbs`, `<entity>/$management`): every request that arrives on
 * `requests` is answered on the link its `reply_to` names, with `correlation_id` = the request's
 * `message_id`, which is how the SDK matches a reply to its request.
 */
export function serveRequests(
  requests: Receiver,
  scope: ConnectionScope,
  answer: (request: Message) => Reply | Promise<Reply>,
): void {
  requests.on("message", (context) => {
    const { message: request, delivery } = context;
    if (request === undefined || delivery === undefined) return;
    const replyLink = scope.replyLink(request.reply_to);
    if (replyLink === undefined) {
      delivery.reject({
        condition: "amqp:precondition-failed",
        description: "reply_to names no reply link attached on this connection",
      });
      return;
    }
    const send = (reply: Reply) => {
      // The client may have gone while a token was being checked.
      if (!replyLink.is_open() || !requests.is_open()) return;
      replyLink.send({
        correlation_id: request.message_id,
        to: request.reply_to,
        application_properties: reply.application_properties,
        body: reply.body,
      });
      delivery.accept();
    };
    const reply = answer(request);
    // A token check fetches keys: its reply comes later; the SDK matches replies by correlation_id.
    if (reply instanceof Promise) void reply.then(send, () => delivery.release());
    else send(reply);
  });
}
