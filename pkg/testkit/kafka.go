package testkit

import "github.com/segmentio/kafka-go"

type kafkaMessage = kafka.Message
