/// The OpenRPC document of the factor side of the protocol, as `docs/factor-protocol.openrpc.json` has it (a test
/// keeps the two the same); ``FactorHost`` answers it to `rpc.discover`.
enum FactorProtocolDocument {
    static let text = #"""
        {
          "openrpc": "1.2.6",
          "info": {
            "title": "Tessera factor protocol",
            "version": "1",
            "description": "Served by a factor service to Tessera (docs/factor-protocol.md)."
          },
          "methods": [
            {
              "name": "factor.describe",
              "summary": "What the factor is: id, amr, members, lifetimes, login pages. Not signed.",
              "params": [],
              "result": {
                "name": "descriptor",
                "schema": {
                  "$ref": "#/components/schemas/Descriptor"
                }
              },
              "paramStructure": "by-name"
            },
            {
              "name": "factor.startEnrollment",
              "summary": "Makes an enrolment challenge (sends a code, makes a secret).",
              "params": [
                {
                  "name": "user",
                  "required": true,
                  "schema": {
                    "$ref": "#/components/schemas/User"
                  }
                },
                {
                  "name": "info",
                  "required": true,
                  "schema": {
                    "type": "object"
                  }
                },
                {
                  "name": "session",
                  "required": true,
                  "schema": {
                    "$ref": "#/components/schemas/Session"
                  }
                },
                {
                  "name": "context",
                  "required": true,
                  "schema": {
                    "$ref": "#/components/schemas/Context"
                  }
                },
                {
                  "name": "enrollments",
                  "required": true,
                  "schema": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Enrollment"
                    }
                  }
                }
              ],
              "result": {
                "name": "challenge",
                "schema": {
                  "type": "object",
                  "properties": {
                    "response": {
                      "type": "object"
                    },
                    "state": {
                      "type": "string",
                      "description": "base64url without padding, at most 4096 bytes decoded"
                    },
                    "display": {
                      "$ref": "#/components/schemas/Display"
                    }
                  },
                  "required": [
                    "response",
                    "display"
                  ]
                }
              },
              "errors": [
                {
                  "code": -32001,
                  "message": "UNAUTHENTICATED : the request's signature, timestamp or nonce is refused (HTTP 401)",
                  "data": {
                    "reason": "UNAUTHENTICATED"
                  }
                }
              ],
              "paramStructure": "by-name"
            },
            {
              "name": "factor.finalizeEnrollment",
              "summary": "Checks the verification info against the start step's state.",
              "params": [
                {
                  "name": "user",
                  "required": true,
                  "schema": {
                    "$ref": "#/components/schemas/User"
                  }
                },
                {
                  "name": "info",
                  "required": true,
                  "schema": {
                    "type": "object"
                  }
                },
                {
                  "name": "state",
                  "required": true,
                  "schema": {
                    "type": "string",
                    "description": "base64url without padding, at most 4096 bytes decoded"
                  }
                },
                {
                  "name": "context",
                  "required": true,
                  "schema": {
                    "$ref": "#/components/schemas/Context"
                  }
                },
                {
                  "name": "enrollments",
                  "required": true,
                  "schema": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Enrollment"
                    }
                  }
                }
              ],
              "result": {
                "name": "enrolled",
                "schema": {
                  "$ref": "#/components/schemas/Enrolled"
                }
              },
              "errors": [
                {
                  "code": -32000,
                  "message": "INVALID_CODE : The verification code is not valid.",
                  "data": {
                    "reason": "INVALID_CODE"
                  }
                },
                {
                  "code": -32001,
                  "message": "UNAUTHENTICATED : the request's signature, timestamp or nonce is refused (HTTP 401)",
                  "data": {
                    "reason": "UNAUTHENTICATED"
                  }
                }
              ],
              "paramStructure": "by-name"
            },
            {
              "name": "factor.startSignIn",
              "summary": "Sends the sign-in challenge of one enrolment (factors with a start step).",
              "params": [
                {
                  "name": "user",
                  "required": true,
                  "schema": {
                    "$ref": "#/components/schemas/User"
                  }
                },
                {
                  "name": "enrollment",
                  "required": true,
                  "schema": {
                    "$ref": "#/components/schemas/Enrollment"
                  }
                },
                {
                  "name": "info",
                  "required": true,
                  "schema": {
                    "type": "object"
                  }
                },
                {
                  "name": "session",
                  "required": true,
                  "schema": {
                    "$ref": "#/components/schemas/Session"
                  }
                },
                {
                  "name": "context",
                  "required": true,
                  "schema": {
                    "$ref": "#/components/schemas/Context"
                  }
                }
              ],
              "result": {
                "name": "challenge",
                "schema": {
                  "type": "object",
                  "properties": {
                    "response": {
                      "type": "object"
                    },
                    "state": {
                      "type": "string",
                      "description": "base64url without padding, at most 4096 bytes decoded"
                    }
                  },
                  "required": [
                    "response"
                  ]
                }
              },
              "errors": [
                {
                  "code": -32001,
                  "message": "UNAUTHENTICATED : the request's signature, timestamp or nonce is refused (HTTP 401)",
                  "data": {
                    "reason": "UNAUTHENTICATED"
                  }
                }
              ],
              "paramStructure": "by-name"
            },
            {
              "name": "factor.verifySignIn",
              "summary": "Checks a sign-in code for one enrolment; a wrong code is the error INVALID_CODE.",
              "params": [
                {
                  "name": "user",
                  "required": true,
                  "schema": {
                    "$ref": "#/components/schemas/User"
                  }
                },
                {
                  "name": "enrollment",
                  "required": true,
                  "schema": {
                    "$ref": "#/components/schemas/Enrollment"
                  }
                },
                {
                  "name": "info",
                  "required": true,
                  "schema": {
                    "type": "object"
                  }
                },
                {
                  "name": "state",
                  "required": true,
                  "schema": {
                    "oneOf": [
                      {
                        "type": "string",
                        "description": "base64url without padding, at most 4096 bytes decoded"
                      },
                      {
                        "type": "null"
                      }
                    ]
                  }
                },
                {
                  "name": "context",
                  "required": true,
                  "schema": {
                    "$ref": "#/components/schemas/Context"
                  }
                }
              ],
              "result": {
                "name": "verdict",
                "schema": {
                  "$ref": "#/components/schemas/Verdict"
                }
              },
              "errors": [
                {
                  "code": -32000,
                  "message": "INVALID_CODE : The verification code is not valid.",
                  "data": {
                    "reason": "INVALID_CODE"
                  }
                },
                {
                  "code": -32001,
                  "message": "UNAUTHENTICATED : the request's signature, timestamp or nonce is refused (HTTP 401)",
                  "data": {
                    "reason": "UNAUTHENTICATED"
                  }
                }
              ],
              "paramStructure": "by-name"
            }
          ],
          "components": {
            "schemas": {
              "User": {
                "type": "object",
                "properties": {
                  "localId": {
                    "type": "string"
                  },
                  "tenantId": {
                    "type": "string"
                  },
                  "email": {
                    "type": "string"
                  },
                  "emailVerified": {
                    "type": "boolean"
                  },
                  "phoneNumber": {
                    "type": "string"
                  },
                  "displayName": {
                    "type": "string"
                  }
                },
                "required": [
                  "localId"
                ]
              },
              "Session": {
                "type": "object",
                "properties": {
                  "sessionInfo": {
                    "type": "string"
                  },
                  "expiresAt": {
                    "type": "string",
                    "format": "date-time"
                  }
                },
                "required": [
                  "sessionInfo",
                  "expiresAt"
                ]
              },
              "Context": {
                "type": "object",
                "properties": {
                  "now": {
                    "type": "string",
                    "format": "date-time"
                  },
                  "tenantId": {
                    "type": "string"
                  },
                  "languageCode": {
                    "type": "string"
                  },
                  "clientAddress": {
                    "type": "string"
                  },
                  "issuerName": {
                    "type": "string"
                  },
                  "appVerifiedByServer": {
                    "type": "boolean"
                  },
                  "mfaConfig": {
                    "type": "object"
                  },
                  "testPhoneNumbers": {
                    "type": "object",
                    "additionalProperties": {
                      "type": "string"
                    }
                  },
                  "smsRegionConfig": {
                    "type": "object"
                  },
                  "smsDailyQuota": {
                    "type": "integer"
                  }
                },
                "required": [
                  "now",
                  "issuerName"
                ]
              },
              "Enrollment": {
                "type": "object",
                "properties": {
                  "mfaEnrollmentId": {
                    "type": "string"
                  },
                  "displayName": {
                    "type": "string"
                  },
                  "enrolledAt": {
                    "type": "string",
                    "format": "date-time"
                  },
                  "publicInfo": {
                    "type": "object"
                  },
                  "maskedInfo": {
                    "type": "object"
                  },
                  "enrollmentState": {
                    "type": "string",
                    "description": "base64url without padding, at most 4096 bytes decoded"
                  }
                },
                "required": [
                  "mfaEnrollmentId",
                  "publicInfo"
                ]
              },
              "Member": {
                "type": "object",
                "properties": {
                  "name": {
                    "type": "string",
                    "pattern": "^[a-z][A-Za-z0-9]{0,63}$"
                  },
                  "schema": {
                    "type": "object"
                  }
                },
                "required": [
                  "name",
                  "schema"
                ]
              },
              "Descriptor": {
                "type": "object",
                "properties": {
                  "protocolVersion": {
                    "const": 1
                  },
                  "id": {
                    "type": "string",
                    "pattern": "^[a-z0-9-]{1,32}$"
                  },
                  "displayName": {
                    "type": "string"
                  },
                  "amr": {
                    "type": "string",
                    "pattern": "^[a-z]{1,16}$"
                  },
                  "members": {
                    "type": "object",
                    "properties": {
                      "enrollmentInfo": {
                        "$ref": "#/components/schemas/Member"
                      },
                      "enrollmentResult": {
                        "$ref": "#/components/schemas/Member"
                      },
                      "verificationInfo": {
                        "$ref": "#/components/schemas/Member"
                      },
                      "signInStart": {
                        "oneOf": [
                          {
                            "type": "null"
                          },
                          {
                            "type": "object",
                            "properties": {
                              "info": {
                                "$ref": "#/components/schemas/Member"
                              },
                              "result": {
                                "$ref": "#/components/schemas/Member"
                              }
                            },
                            "required": [
                              "info",
                              "result"
                            ]
                          }
                        ]
                      }
                    },
                    "required": [
                      "enrollmentInfo",
                      "enrollmentResult",
                      "verificationInfo"
                    ]
                  },
                  "enrollmentLifetime": {
                    "type": "integer",
                    "minimum": 30,
                    "maximum": 3600
                  },
                  "signInLifetime": {
                    "type": "integer",
                    "minimum": 30,
                    "maximum": 3600
                  },
                  "loginPages": {
                    "type": "object",
                    "description": "docs/login-pages.md"
                  },
                  "enrollmentNamedBy": {
                    "type": "object",
                    "properties": {
                      "infoKey": {
                        "type": "string"
                      },
                      "publicInfoKey": {
                        "type": "string"
                      }
                    },
                    "required": [
                      "infoKey",
                      "publicInfoKey"
                    ]
                  },
                  "backup": {
                    "type": "boolean",
                    "description": "a backup factor such as recovery codes (docs/mfa.md)"
                  }
                },
                "required": [
                  "protocolVersion",
                  "id",
                  "amr",
                  "members",
                  "enrollmentLifetime"
                ]
              },
              "Display": {
                "type": "object",
                "properties": {
                  "instructions": {
                    "type": "string"
                  },
                  "qrCodeSVG": {
                    "type": "string"
                  },
                  "manualEntryKey": {
                    "type": "string"
                  }
                },
                "required": [
                  "instructions"
                ]
              },
              "Enrolled": {
                "type": "object",
                "properties": {
                  "publicInfo": {
                    "type": "object"
                  },
                  "maskedInfo": {
                    "type": "object"
                  },
                  "enrollmentState": {
                    "type": "string",
                    "description": "base64url without padding, at most 4096 bytes decoded"
                  },
                  "replayMark": {
                    "type": "integer"
                  },
                  "uniqueKey": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256
                  }
                },
                "required": [
                  "publicInfo"
                ]
              },
              "Verdict": {
                "type": "object",
                "properties": {
                  "replayMark": {
                    "type": "integer"
                  },
                  "enrollmentState": {
                    "type": "string",
                    "description": "base64url without padding, at most 4096 bytes decoded"
                  }
                },
                "required": []
              }
            }
          }
        }
        """#
}
