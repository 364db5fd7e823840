/// Every country calling code of ITU-T E.164 in service, and the CLDR region each range of numbers belongs to, as data.
///
/// One entry a line, fields separated by one space: `CODE REGION` covers every number with that calling code, and
/// `CODE DIGITS REGION` the numbers whose national part (the digits after the calling code) starts with `DIGITS`.
/// The longest matching `DIGITS` wins, else the `CODE REGION` line. `CODE` is 1 to 3 digits, the first not `0`;
/// `DIGITS` is 1 to 8 digits; `REGION` is a two-letter upper-case CLDR region, or `001` for the non-geographic
/// codes. A line starting with `#` is a comment; blank lines are ignored. `CallingCodeIndex` parses the text once.
///
/// The codes and the ranges of the shared codes follow libphonenumber's metadata (`PhoneNumberMetadata.xml`: its
/// territories' `leadingDigits`, and for the territories without them, the ranges its number patterns give each
/// one, main country first), as of libphonenumber 9.0.43; some 270 000 valid numbers of the shared codes resolve
/// here as libphonenumber resolves them, but for these departures, each noted at its code: +1 is resolved by area
/// code alone, so an unassigned area code is US; +7 6 is Kazakhstan; +44 7924 is the Isle of Man; +212 5288 and
/// 5289 are Western Sahara; +379 (assigned to Vatican City, unused) is VA; all of +590 is Guadeloupe.
enum CallingCodeTable {
    /// The table, in the format above.
    static let text = """
        # Zone 1: North America
        # +1, the North American Numbering Plan: by area code. Listed: Canada's area codes (600, 622 and 633 are its
        # non-geographic ones) and those of the other members; every other area code is US.
        1 US
        1 204 CA
        1 226 CA
        1 236 CA
        1 242 BS
        1 246 BB
        1 249 CA
        1 250 CA
        1 257 CA
        1 263 CA
        1 264 AI
        1 268 AG
        1 273 CA
        1 284 VG
        1 289 CA
        1 306 CA
        1 340 VI
        1 343 CA
        1 345 KY
        1 354 CA
        1 365 CA
        1 367 CA
        1 368 CA
        1 382 CA
        1 403 CA
        1 416 CA
        1 418 CA
        1 428 CA
        1 431 CA
        1 437 CA
        1 438 CA
        1 441 BM
        1 450 CA
        1 468 CA
        1 473 GD
        1 474 CA
        1 506 CA
        1 514 CA
        1 519 CA
        1 548 CA
        1 579 CA
        1 581 CA
        1 584 CA
        1 587 CA
        1 600 CA
        1 604 CA
        1 613 CA
        1 622 CA
        1 633 CA
        1 639 CA
        1 647 CA
        1 649 TC
        1 658 JM
        1 664 MS
        1 670 MP
        1 671 GU
        1 672 CA
        1 683 CA
        1 684 AS
        1 705 CA
        1 709 CA
        1 721 SX
        1 742 CA
        1 753 CA
        1 758 LC
        1 767 DM
        1 778 CA
        1 780 CA
        1 782 CA
        1 784 VC
        1 787 PR
        1 807 CA
        1 809 DO
        1 819 CA
        1 825 CA
        1 829 DO
        1 849 DO
        1 867 CA
        1 868 TT
        1 869 KN
        1 873 CA
        1 876 JM
        1 879 CA
        1 902 CA
        1 905 CA
        1 939 PR
        1 942 CA

        # Zone 2: Africa and the South Atlantic
        20 EG
        211 SS
        # +212: Western Sahara's landline blocks 5288 and 5289 (libphonenumber answers MA for every +212 number).
        212 MA
        212 5288 EH
        212 5289 EH
        213 DZ
        216 TN
        218 LY
        220 GM
        221 SN
        222 MR
        223 ML
        224 GN
        225 CI
        226 BF
        227 NE
        228 TG
        229 BJ
        230 MU
        231 LR
        232 SL
        233 GH
        234 NG
        235 TD
        236 CF
        237 CM
        238 CV
        239 ST
        240 GQ
        241 GA
        242 CG
        243 CD
        244 AO
        245 GW
        246 IO
        247 AC
        248 SC
        249 SD
        250 RW
        251 ET
        252 SO
        253 DJ
        254 KE
        255 TZ
        256 UG
        257 BI
        258 MZ
        260 ZM
        261 MG
        # +262: Mayotte's landline, mobile and VoIP blocks; the rest is Réunion.
        262 RE
        262 2689 YT
        262 269 YT
        262 639 YT
        262 7093 YT
        262 9398 YT
        262 9478 YT
        262 9769 YT
        263 ZW
        264 NA
        265 MW
        266 LS
        267 BW
        268 SZ
        269 KM
        27 ZA
        # +290: Tristan da Cunha is 8; the rest is Saint Helena.
        290 SH
        290 8 TA
        291 ER
        297 AW
        298 FO
        299 GL

        # Zone 3: Europe
        30 GR
        31 NL
        32 BE
        33 FR
        34 ES
        350 GI
        351 PT
        352 LU
        353 IE
        354 IS
        355 AL
        356 MT
        357 CY
        # +358: Åland is 18.
        358 FI
        358 18 AX
        359 BG
        36 HU
        370 LT
        371 LV
        372 EE
        373 MD
        374 AM
        375 BY
        376 AD
        377 MC
        378 SM
        # +379: assigned to Vatican City, not in service (see +39 06698).
        379 VA
        380 UA
        381 RS
        382 ME
        383 XK
        385 HR
        386 SI
        387 BA
        389 MK
        # +39: Vatican City's landlines are 06 698 inside Italy's numbering.
        39 IT
        39 06698 VA

        # Zone 4: Europe
        40 RO
        41 CH
        420 CZ
        421 SK
        423 LI
        43 AT
        # +44: Guernsey, Jersey and the Isle of Man by number block. 980 and 981 are premium-rate blocks that
        # libphonenumber gives to Guernsey; 7924 is a Manx mobile block that libphonenumber's GB pattern shadows.
        44 GB
        44 1481 GG
        44 1534 JE
        44 1624 IM
        44 74576 IM
        44 7509 JE
        44 7524 IM
        44 7624 IM
        44 77003 JE
        44 77007 JE
        44 77008 JE
        44 7781 GG
        44 7797 JE
        44 7829 JE
        44 7839 GG
        44 79111 GG
        44 79117 GG
        44 7924 IM
        44 7937 JE
        44 980 GG
        44 981 GG
        45 DK
        46 SE
        # +47: Svalbard and Jan Mayen are 79.
        47 NO
        47 79 SJ
        48 PL
        49 DE

        # Zone 5: Central and South America, the French Antilles and the Falklands
        500 FK
        501 BZ
        502 GT
        503 SV
        504 HN
        505 NI
        506 CR
        507 PA
        508 PM
        509 HT
        51 PE
        52 MX
        53 CU
        54 AR
        55 BR
        56 CL
        57 CO
        58 VE
        # +590: Saint Barthélemy and Saint Martin share Guadeloupe's numbers, mobiles included: all of it is GP.
        590 GP
        591 BO
        592 GY
        593 EC
        594 GF
        595 PY
        596 MQ
        597 SR
        598 UY
        # +599: Curaçao is 9 (and 6); Bonaire, Sint Eustatius and Saba are 7, 3 and 4.
        599 CW
        599 3 BQ
        599 4 BQ
        599 7 BQ

        # Zone 6: South-East Asia and Oceania
        60 MY
        # +61: the landline blocks of the Cocos (Keeling) Islands and Christmas Island; their mobiles are Australian.
        61 AU
        61 851001 CX
        61 851002 CC
        61 851030 CX
        61 851031 CC
        61 851059 CX
        61 851060 CC
        61 851088 CX
        61 851089 CC
        61 851117 CX
        61 851118 CC
        61 851146 CX
        61 851175 CX
        61 851176 CC
        61 851222 CX
        61 851223 CC
        61 851235 CX
        61 89162 CC
        61 89164 CX
        61 891703 CC
        61 891958 CX
        62 ID
        63 PH
        64 NZ
        65 SG
        66 TH
        670 TL
        672 NF
        673 BN
        674 NR
        675 PG
        676 TO
        677 SB
        678 VU
        679 FJ
        680 PW
        681 WF
        682 CK
        683 NU
        685 WS
        686 KI
        687 NC
        688 TV
        689 PF
        690 TK
        691 FM
        692 MH

        # Zone 7: Russia and Kazakhstan
        # +7: Kazakhstan holds the national numbers that start with 6 or 7; the rest is Russia.
        7 RU
        7 6 KZ
        7 7 KZ

        # Zone 8: East Asia and non-geographic services
        # Non-geographic codes, region 001: 800 international freephone, 808 shared cost, 870 Inmarsat, 878 UPT,
        # 881 global mobile satellite, 882 and 883 international networks, 888 disaster relief, 979 premium rate.
        800 001
        808 001
        81 JP
        82 KR
        84 VN
        850 KP
        852 HK
        853 MO
        855 KH
        856 LA
        86 CN
        870 001
        878 001
        880 BD
        881 001
        882 001
        883 001
        886 TW
        888 001

        # Zone 9: West, South and Central Asia
        90 TR
        91 IN
        92 PK
        93 AF
        94 LK
        95 MM
        960 MV
        961 LB
        962 JO
        963 SY
        964 IQ
        965 KW
        966 SA
        967 YE
        968 OM
        970 PS
        971 AE
        972 IL
        973 BH
        974 QA
        975 BT
        976 MN
        977 NP
        979 001
        98 IR
        992 TJ
        993 TM
        994 AZ
        995 GE
        996 KG
        998 UZ
        """
}
