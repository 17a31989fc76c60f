package events_test

import "github.com/segmentio/kafka-go"

type kafkaMessage = kafka.Message
