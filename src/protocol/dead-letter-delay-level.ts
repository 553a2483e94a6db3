/**
 * The `delayLevel` of CONSUMER_SEND_MSG_BACK that makes the broker write the message straight to
 * `%DLQ%<group>`, without a retry (any level below 0 does; Java sends -1).
 */
export const DEAD_LETTER_DELAY_LEVEL = -1;
