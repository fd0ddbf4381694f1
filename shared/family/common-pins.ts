/**
 * The 100 most common PINs of 6 to 12 digits, most common first.
 *
 * Source: the frequency-ranked common-password list of zxcvbn-ts (`@zxcvbn-ts/language-common`
 * 4.1.3, `passwords-common`), itself compiled from leaked password corpora; these are its first
 * 100 entries made only of 6 to 12 digits, in rank order. Leaked numeric passwords are the best
 * public proxy for chosen PINs: the 6-digit PIN studies (Wang et al., AsiaCCS 2017; Markert et
 * al., IEEE S&P 2020) find the same heads — 123456, 111111, 123123, 112233, 147258, 159753,
 * dates — as this list. Many entries (runs, one repeated digit) are refused by the shape rules
 * anyway; the list catches the rest: keypad patterns, dates, mirrored and doubled blocks.
 * `common-pins.test.ts` re-derives the list from the package, so the claim above stays true.
 */
export const COMMON_PINS: readonly string[] = [
  '123456', '12345678', '123456789', '111111', '1234567', '123123', '696969', '666666', '123321', '1234567890',
  '7777777', '000000', '112233', '11111111', '131313', '159753', '123654', '12344321', '8675309', '159357',
  '789456', '4815162342', '01012011', '102030', '11223344', '315475', '789456123', '007007', '147258369', '111222',
  '147258', '010203', '147852', '123789', '1234554321', '9379992', '852456', '159951', '123654789', '134679',
  '741852963', '147852369', '01011980', '1029384756', '124578', '01012000', '135790', '142536', '741852', '21122112',
  '456123', '666999', '246810', '753951', '31415926', '314159', '01011990', '12345678910', '141627', '321654',
  '1478963', '951753', '11235813', '51505150', '123454321', '1234321', '14789632', '112358', '911911', '1123581321',
  '555666', '7895123', '01012010', '121314', '111222333', '456852', '147896325', '123098', '123321123', '192837465',
  '25802580', '123698745', '12369874', '258456', '102938', '12312312', '123987', '1122334455', '445566', '11112222',
  '987456', '6751520', '456654', '753159', '01012001', '223344', '906090', '789654', '666777', '123457',
];
